import { describe, expect, it } from 'vitest';
import { RouterMetrics } from './metrics.js';

async function values(metrics: RouterMetrics, name: string): Promise<{ labels: Record<string, unknown>; value: number }[]> {
  const all = await metrics.registry.getMetricsAsJSON();
  return (all.find((m) => m.name === `typeorm_sharding_router_${name}`)?.values ?? []) as { labels: Record<string, unknown>; value: number }[];
}

describe('RouterMetrics counted per statement without prom-client on the hot path', () => {
  it('hands requests_total every label set with its count, also one node name on two servers', async () => {
    const metrics = new RouterMetrics();
    for (let i = 0; i < 3; i++) metrics.countRequest('a', 'n1', 'primary', 'select', 'ok');
    metrics.countRequest('b', 'n1', 'primary', 'select', 'ok');
    metrics.countRequest('a', 'n1', 'primary', 'select', 'sql_error');
    metrics.countRequest('a', 'n1', 'primary', 'update', 'ok');
    metrics.countRequest('a', 'n1', 'primary', 'select', 'ok');
    const got = (await values(metrics, 'requests_total')).map((v) => `${String(v.labels.server)}/${String(v.labels.kind)}/${String(v.labels.outcome)}=${v.value}`).sort();
    expect(got).toEqual(['a/select/ok=4', 'a/select/sql_error=1', 'a/update/ok=1', 'b/select/ok=1']);
    // Read twice: the same totals (collect resets before it adds).
    expect((await values(metrics, 'requests_total')).reduce((n, v) => n + v.value, 0)).toBe(7);
  });

  it('hands fallbacks_total every server, role and fallback with its count', async () => {
    const metrics = new RouterMetrics();
    for (let i = 0; i < 5; i++) metrics.countFallback('a', 'primary', 'no-replica');
    metrics.countFallback('a', 'replica', 'no-analytics');
    metrics.countFallback('a', 'replica', 'no-replica');
    metrics.countFallback('b', 'primary', 'no-replica');
    const got = (await values(metrics, 'fallbacks_total')).map((v) => `${String(v.labels.server)}/${String(v.labels.role)}/${String(v.labels.fallback)}=${v.value}`).sort();
    expect(got).toEqual(['a/primary/no-replica=5', 'a/replica/no-analytics=1', 'a/replica/no-replica=1', 'b/primary/no-replica=1']);
  });
});

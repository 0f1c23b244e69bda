// The routing decision of the query router (issue 10) at a route-cache hit, timed one call at a
// time: what `pnpm bench:router` prints and section 8 of the report shows. No server is needed:
// the router's monitors are not started, so every replica is up and caught up (steady state).
import { QueryRouter, readRouterConfig, withRouting } from '../../packages/typeorm-sharding/dist/router/index.js';

/** Names of the rows `measureDecisions` returns, in order (the report's section 8b). */
export const DECISION_CASES = ['read → replica (load_score)', 'write → primary', 'aggregate over 16 shards → analytics', 'read with a comment hint (hintsOf + route)', 'read inside withRouting({ consistentRead })'];

/** The cases, by name: each makes the descriptor the engine would pass. */
function cases(router) {
  const commentSql = '/* FORCE_SLAVE */ SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`id` = ?';
  return {
    'read → replica (load_score)': () => ({ kind: 'select', shapeKey: 'SELECT `id` FROM `orders` WHERE `id` = ?', shardCount: 1 }),
    'write → primary': () => ({ kind: 'insert', shapeKey: 'INSERT INTO `orders` VALUES (?)' }),
    'aggregate over 16 shards → analytics': () => ({ kind: 'select', shapeKey: 'SELECT COUNT(*) FROM `orders`', hasAggregates: true, shardCount: 16 }),
    'read with a comment hint (hintsOf + route)': () => ({ kind: 'select', shapeKey: 'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`id` = ?', hints: router.hintsOf(commentSql) }),
  };
}

/**
 * p50 / p99 / p99.9 (µs) of `router.route` per case, after a warm-up, plus the timer's own cost.
 * @returns {{ rows: { name: string, p50: number, p99: number, p999: number }[], timerP50: number, iterations: number, routeCacheMisses: number }}
 */
export async function measureDecisions({ iterations = 100_000, balancer = 'load_score' } = {}) {
  const warmup = Math.min(50_000, iterations);
  const config = readRouterConfig({
    defaults: { host: '127.0.0.1' },
    nodes: { p: { port: 3306 }, r1: { port: 3307 }, r2: { port: 3308 }, a1: { port: 3309 } },
    routing: { master: { nodes: ['p'] }, slave: { nodes: ['r1', 'r2'], loadBalance: balancer }, columnar: { nodes: ['a1'] } },
  });
  const router = new QueryRouter(config, { warn: () => undefined });
  const measure = (make, wrap = (fn) => fn()) => {
    const samples = new Float64Array(iterations);
    wrap(() => {
      for (let i = 0; i < warmup + iterations; i++) {
        const t0 = process.hrtime.bigint();
        const target = router.route('default', make());
        const t1 = process.hrtime.bigint();
        router.complete(target, { result: [] });
        if (i >= warmup) samples[i - warmup] = Number(t1 - t0) / 1000;
      }
    });
    samples.sort();
    const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
    return { p50: at(0.5), p99: at(0.99), p999: at(0.999) };
  };
  const timer = new Float64Array(10_000);
  for (let i = 0; i < timer.length; i++) {
    const t0 = process.hrtime.bigint();
    timer[i] = Number(process.hrtime.bigint() - t0) / 1000;
  }
  timer.sort();
  const all = cases(router);
  const rows = Object.entries(all).map(([name, make]) => ({ name, ...measure(make) }));
  rows.push({ name: 'read inside withRouting({ consistentRead })', ...measure(all['read → replica (load_score)'], (fn) => withRouting({ consistentRead: true }, fn)) });
  const misses = (await router.metrics.registry.getMetricsAsJSON()).find((m) => m.name === 'typeorm_sharding_router_route_cache_misses_total');
  return { rows, timerP50: timer[5000], iterations, routeCacheMisses: misses?.values[0]?.value ?? 0 };
}

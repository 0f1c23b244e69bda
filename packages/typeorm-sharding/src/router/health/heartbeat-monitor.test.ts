import { describe, expect, it } from 'vitest';
import { ManualClock } from '../testing/manual-clock.js';
import { testConfig } from '../testing/router-fixture.js';
import { HealthState } from './health-state.js';
import { HeartbeatMonitor, type HeartbeatResult } from './heartbeat-monitor.js';

describe('heartbeat monitor', () => {
  const config = testConfig();
  const nodes = [config.servers[0]!.primary, config.servers[0]!.replicas[0]!];

  it('beats every interval, counts a probe slower than the timeout as a miss, and marks the node down at the third', async () => {
    const clock = new ManualClock();
    let hang = false;
    const probe = (node: { name: string }) => (hang && node.name === 'r1' ? new Promise<number>(() => undefined) : Promise.resolve(0.5));
    const results: [string, boolean, number][] = [];
    const health = new HealthState(config.health);
    let downAt: number | undefined;
    const monitor = new HeartbeatMonitor([...nodes], probe, clock, config.health, (node, result: HeartbeatResult, at) => {
      results.push([node.name, result.ok, at]);
      if (node.name !== 'r1') return;
      const t = result.ok ? health.heartbeatSucceeded(at) : health.heartbeatMissed(at);
      if (t?.to === 'down') downAt = at;
    });
    monitor.start();
    await clock.advance(2000);
    expect(results).toEqual([
      ['p', true, 1000],
      ['r1', true, 1000],
      ['p', true, 2000],
      ['r1', true, 2000],
    ]);
    hang = true; // r1 stops answering at 2000
    await clock.advance(4000);
    const misses = results.filter(([n, ok]) => n === 'r1' && !ok).map(([, , at]) => at);
    expect(misses.slice(0, 3)).toEqual([3500, 4500, 5500]);
    expect(downAt).toBe(5500);
    expect(health.lastFailoverMs).toBe(2000);
    monitor.stop();
    const before = results.length;
    await clock.advance(5000);
    expect(results.length).toBe(before);
  });
});

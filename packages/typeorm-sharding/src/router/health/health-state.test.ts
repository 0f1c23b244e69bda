import { describe, expect, it } from 'vitest';
import { DEFAULT_HEALTH } from '../router-options.js';
import { HealthState } from './health-state.js';

describe('health state machine', () => {
  it('goes down after 3 consecutive misses and measures the failover from the first', () => {
    const h = new HealthState(DEFAULT_HEALTH);
    expect(h.heartbeatMissed(1000)).toBeUndefined();
    expect(h.heartbeatMissed(2000)).toBeUndefined();
    expect(h.heartbeatMissed(3000)).toEqual({ to: 'down', cause: 'heartbeat', failoverMs: 2000 });
    expect(h.isUp).toBe(false);
    expect(h.heartbeatMissed(4000)).toBeUndefined();
  });

  it('a success between misses starts the count again', () => {
    const h = new HealthState(DEFAULT_HEALTH);
    h.heartbeatMissed(1000);
    h.heartbeatMissed(2000);
    h.heartbeatSucceeded(3000);
    h.heartbeatMissed(4000);
    h.heartbeatMissed(5000);
    expect(h.isUp).toBe(true);
    expect(h.heartbeatMissed(6000)).toMatchObject({ to: 'down', failoverMs: 2000 });
  });

  it('comes back after 2 consecutive successes', () => {
    const h = new HealthState(DEFAULT_HEALTH);
    for (const t of [1, 2, 3]) h.heartbeatMissed(t * 1000);
    expect(h.heartbeatSucceeded(4000)).toBeUndefined();
    h.heartbeatMissed(5000);
    expect(h.heartbeatSucceeded(6000)).toBeUndefined();
    expect(h.heartbeatSucceeded(7000)).toEqual({ to: 'up', downForMs: 4000 });
    expect(h.isUp).toBe(true);
  });

  it('stays down at least minDownMs', () => {
    const h = new HealthState({ ...DEFAULT_HEALTH, minDownMs: 10_000 });
    for (const t of [1, 2, 3]) h.heartbeatMissed(t * 1000);
    expect(h.heartbeatSucceeded(4000)).toBeUndefined();
    expect(h.heartbeatSucceeded(5000)).toBeUndefined();
    expect(h.heartbeatSucceeded(13_000)).toMatchObject({ to: 'up' });
  });

  it('connection errors of statements take a node down before the heartbeat does', () => {
    const h = new HealthState({ ...DEFAULT_HEALTH, errorThreshold: 3 });
    h.statementConnectionError(100);
    h.statementConnectionError(120);
    expect(h.statementConnectionError(150)).toEqual({ to: 'down', cause: 'traffic', failoverMs: 50 });
  });

  it('a good statement ends a run of statement errors; errorThreshold 0 ignores them', () => {
    const h = new HealthState({ ...DEFAULT_HEALTH, errorThreshold: 2 });
    h.statementConnectionError(1);
    h.statementSucceeded();
    expect(h.statementConnectionError(2)).toBeUndefined();
    const off = new HealthState({ ...DEFAULT_HEALTH, errorThreshold: 0 });
    for (let i = 0; i < 10; i++) off.statementConnectionError(i);
    expect(off.isUp).toBe(true);
  });
});

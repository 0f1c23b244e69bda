import { describe, expect, it } from 'vitest';
import { DEFAULT_WARM_UP } from './router-options.js';
import { WarmUp } from './warm-up.js';

const fine = { errorRate: 0, latencyMs: 2 };
const peers = { errorRate: 0, latencyMs: 2 };
const MINUTE = 60_000;

describe('warm-up', () => {
  it('starts at 10 % and reaches the full share in 5 steps over 5 minutes', () => {
    const w = new WarmUp(DEFAULT_WARM_UP, 0);
    const shares = [0, 59_999, MINUTE, 2 * MINUTE, 3 * MINUTE, 4 * MINUTE, 5 * MINUTE, 6 * MINUTE].map((t) => Number(w.advance(t, fine, peers).toFixed(2)));
    expect(shares).toEqual([0.1, 0.1, 0.28, 0.46, 0.64, 0.82, 1, 1]);
    expect(w.done).toBe(true);
  });

  it('holds a step while the node is slower than its peers, and goes on once it is not', () => {
    const w = new WarmUp(DEFAULT_WARM_UP, 0);
    expect(w.advance(MINUTE, { errorRate: 0, latencyMs: 10 }, peers)).toBeCloseTo(0.1);
    expect(w.advance(2 * MINUTE, { errorRate: 0, latencyMs: 10 }, peers)).toBeCloseTo(0.1);
    expect(w.heldSteps).toBe(2);
    expect(w.advance(3 * MINUTE, { errorRate: 0, latencyMs: 2.5 }, peers)).toBeCloseTo(0.28);
  });

  it('holds a step while the node fails more often than its peers', () => {
    const w = new WarmUp(DEFAULT_WARM_UP, 0);
    expect(w.advance(MINUTE, { errorRate: 0.05, latencyMs: 2 }, peers)).toBeCloseTo(0.1);
    expect(w.advance(2 * MINUTE, { errorRate: 0.005, latencyMs: 2 }, peers)).toBeCloseTo(0.28);
  });

  it('catches up all due steps at once, and takes them when there is no peer to compare with', () => {
    const w = new WarmUp({ ...DEFAULT_WARM_UP, durationMs: 1000, steps: 4, initialShare: 0.2 }, 0);
    expect(w.advance(500, fine, undefined)).toBeCloseTo(0.6);
    expect(w.advance(1000, fine, undefined)).toBe(1);
  });

  it('is complete at once with a duration of 0', () => {
    expect(new WarmUp({ ...DEFAULT_WARM_UP, durationMs: 0 }, 0).share).toBe(1);
  });
});

import type { Clock } from '../clock.js';

/**
 * A clock the test moves by hand: `now()` returns `time` (after `onRead` had its say), and
 * `sleep(ms)` records the wait and moves time forward by it, as a real sleep would.
 */
export class FakeClock implements Clock {
  /** Every sleep the generator asked for, in order. */
  readonly sleeps: number[] = [];
  /** Called before each read, e.g. to advance time as a workload would. */
  onRead: ((clock: FakeClock) => void) | undefined;

  constructor(public time: number) {}

  now(): number {
    this.onRead?.(this);
    return this.time;
  }

  sleep(ms: number): void {
    this.sleeps.push(ms);
    this.time += ms;
  }
}

/** A small deterministic PRNG (mulberry32) returning fractions in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

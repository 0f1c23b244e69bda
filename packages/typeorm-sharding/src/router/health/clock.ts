/**
 * Time and timers, injectable so that heartbeats, lag checks and warm-up can be tested with a
 * manual clock (`router/testing/manual-clock.ts`) instead of waiting.
 */
export interface Clock {
  /** Milliseconds, monotonic. */
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The process clock (`performance.now()`), with timers that do not keep the process alive. */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

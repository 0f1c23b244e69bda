/**
 * What the key generator knows of time. Injected so that tests can move time forwards and
 * backwards at will; the default is the system clock.
 */
export interface Clock {
  /** Wall-clock milliseconds since the Unix epoch (an integer). */
  now(): number;
  /**
   * Blocks for about `ms` milliseconds. The generator calls it to wait out a small step back of
   * the clock and, when 4096 ids were issued within one millisecond, for the next millisecond.
   */
  sleep(ms: number): void;
}

// One shared cell to wait on: nothing ever notifies it, so Atomics.wait simply times out.
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * `Date.now()`, and a synchronous sleep: ids are issued synchronously so that `nextId()` can be
 * called anywhere, as `randomUUID()` can. The sleep blocks the event loop, but only for a clock
 * step within the tolerance (10 ms by default) or until the next millisecond. Waiting for the
 * next millisecond (`sleep(1)`, after 4096 ids in one) spins on `Date.now()`, which ends at the
 * tick instead of up to a millisecond later; longer waits use `Atomics.wait` (allowed on Node's
 * main thread), which does not burn the CPU.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => {
    if (ms > 1) {
      Atomics.wait(sleeper, 0, 0, ms);
      return;
    }
    const until = Date.now() + ms;
    while (Date.now() < until) {
      // the rest of this millisecond
    }
  },
};

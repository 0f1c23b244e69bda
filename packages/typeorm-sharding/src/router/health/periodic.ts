import type { Clock } from './clock.js';

/**
 * Runs `task` every `intervalMs` on `clock`, never two at once: the next run is scheduled when
 * the previous one settles (one interval after it started, or at once if it took longer).
 * A task that throws is not stopped. Returns the function that stops it.
 */
export function every(clock: Clock, intervalMs: number, task: () => Promise<void>): () => void {
  let stopped = false;
  let handle: unknown;
  const run = () => {
    if (stopped) return;
    const started = clock.now();
    void task()
      .catch(() => undefined)
      .then(() => {
        if (!stopped) handle = clock.setTimeout(run, Math.max(0, intervalMs - (clock.now() - started)));
      });
  };
  handle = clock.setTimeout(run, intervalMs);
  return () => {
    stopped = true;
    clock.clearTimeout(handle);
  };
}

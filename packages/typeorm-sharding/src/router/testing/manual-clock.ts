import type { Clock } from '../health/clock.js';

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
}

/** Lets pending promise callbacks run (heartbeat probes, their timeouts, `then` chains). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A clock that moves only when told: timers fire in time order inside `advance`. */
export class ManualClock implements Clock {
  private time = 0;
  private seq = 0;
  private timers: Timer[] = [];

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const timer = { at: this.time + Math.max(0, ms), seq: ++this.seq, fn };
    this.timers.push(timer);
    return timer;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t !== handle);
  }

  /** Moves time forward by `ms`, firing due timers in order and letting promises settle after each. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      await settle();
      let next: Timer | undefined;
      for (const t of this.timers) if (t.at <= end && (next === undefined || t.at < next.at || (t.at === next.at && t.seq < next.seq))) next = t;
      if (next === undefined) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.time = next.at;
      next.fn();
    }
    this.time = end;
    await settle();
  }
}

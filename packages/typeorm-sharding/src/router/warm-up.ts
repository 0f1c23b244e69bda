import type { WarmUpOptions } from './router-options.js';

/** How a node behaves, for warm-up decisions: moving averages of its statements. */
export interface Behaviour {
  /** Share of statements that failed with a connection error or timed out, in [0, 1]. */
  readonly errorRate: number;
  /** Moving average of statement latency, in milliseconds; undefined before any statement. */
  readonly latencyMs: number | undefined;
}

/**
 * The ramp of a node that is new or back from down (the article's §4.2: 10 % of the traffic at
 * first, checked every minute, raised step by step). Its share starts at `initialShare` and
 * rises by equal steps to 1, one step every `durationMs / steps`; a step that falls due while
 * the node's error rate or latency is worse than its peers' is held back (and tried again one
 * step period later), so a node that is still cold, or still broken, does not get more
 * traffic. Pure: time and behaviour come in as arguments.
 */
export class WarmUp {
  private step = 0;
  private nextStepAt: number;
  /** Steps that were held back so far. */
  heldSteps = 0;

  constructor(
    private readonly options: WarmUpOptions,
    startedAt: number,
  ) {
    this.nextStepAt = startedAt + this.stepMs;
    if (options.durationMs === 0) this.step = options.steps;
  }

  /** The node's current share of its full traffic, in (0, 1]. */
  get share(): number {
    const { initialShare, steps } = this.options;
    return this.step >= steps ? 1 : initialShare + ((1 - initialShare) * this.step) / steps;
  }

  get done(): boolean {
    return this.step >= this.options.steps;
  }

  /**
   * Advances the ramp to `now`: each step that has fallen due is taken if the node behaves no
   * worse than its peers (`peers` undefined: no one to compare with, so it is taken). Returns
   * the share.
   */
  advance(now: number, own: Behaviour, peers: Behaviour | undefined): number {
    while (!this.done && now >= this.nextStepAt) {
      if (this.worseThan(own, peers)) this.heldSteps++;
      else this.step++;
      this.nextStepAt += this.stepMs;
    }
    return this.share;
  }

  private get stepMs(): number {
    return this.options.durationMs / this.options.steps;
  }

  private worseThan(own: Behaviour, peers: Behaviour | undefined): boolean {
    if (peers === undefined) return false;
    if (own.errorRate > peers.errorRate + this.options.errorRateTolerance) return true;
    return own.latencyMs !== undefined && peers.latencyMs !== undefined && own.latencyMs > peers.latencyMs * this.options.latencyTolerance;
  }
}

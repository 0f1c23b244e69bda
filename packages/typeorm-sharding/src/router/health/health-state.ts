import type { HealthCheckOptions } from '../router-options.js';

/** What took a node out. */
export type DownCause = 'heartbeat' | 'traffic';

/** A change of a node's health. */
export type HealthTransition =
  | {
      readonly to: 'down';
      readonly cause: DownCause;
      /** From the first failure of the run that took the node down to the moment it was marked down. */
      readonly failoverMs: number;
    }
  | { readonly to: 'up'; readonly downForMs: number };

/**
 * The health of one node as a small state machine, fed with heartbeat results and with the
 * connection errors of real statements; time comes in as arguments, so it is pure and
 * tested without timers.
 *
 * - up → down after `failureThreshold` consecutive missed heartbeats, or `errorThreshold`
 *   consecutive connection errors of statements (whichever comes first);
 * - down → up after `successThreshold` consecutive good heartbeats, and not before
 *   `minDownMs` has passed;
 * - failover time: from the first failure of the run (heartbeat or statement) to the moment
 *   the node is marked down, after which no new statement is routed to it.
 */
export class HealthState {
  status: 'up' | 'down' = 'up';
  private misses = 0;
  private successes = 0;
  private trafficErrors = 0;
  private firstFailureAt: number | undefined;
  private downSince = 0;
  /** Failover time of the last time the node went down. */
  lastFailoverMs: number | undefined;

  constructor(private readonly options: HealthCheckOptions) {}

  get isUp(): boolean {
    return this.status === 'up';
  }

  heartbeatSucceeded(now: number): HealthTransition | undefined {
    this.misses = 0;
    if (this.status === 'up') {
      if (this.trafficErrors === 0) this.firstFailureAt = undefined;
      return undefined;
    }
    this.successes++;
    if (this.successes < this.options.successThreshold || now - this.downSince < this.options.minDownMs) return undefined;
    return this.markUp(now);
  }

  heartbeatMissed(now: number): HealthTransition | undefined {
    this.successes = 0;
    if (this.status === 'down') return undefined;
    this.firstFailureAt ??= now;
    this.misses++;
    return this.misses >= this.options.failureThreshold ? this.markDown(now, 'heartbeat') : undefined;
  }

  /** A statement on the node failed to connect or lost its connection (not an SQL error). */
  statementConnectionError(now: number): HealthTransition | undefined {
    if (this.status === 'down' || this.options.errorThreshold === 0) return undefined;
    this.firstFailureAt ??= now;
    this.trafficErrors++;
    return this.trafficErrors >= this.options.errorThreshold ? this.markDown(now, 'traffic') : undefined;
  }

  /** A statement on the node succeeded: the run of connection errors is over. */
  statementSucceeded(): void {
    this.trafficErrors = 0;
    if (this.misses === 0) this.firstFailureAt = undefined;
  }

  private markDown(now: number, cause: DownCause): HealthTransition {
    const failoverMs = now - (this.firstFailureAt ?? now);
    this.status = 'down';
    this.downSince = now;
    this.successes = 0;
    this.lastFailoverMs = failoverMs;
    return { to: 'down', cause, failoverMs };
  }

  private markUp(now: number): HealthTransition {
    this.status = 'up';
    this.misses = 0;
    this.trafficErrors = 0;
    this.successes = 0;
    this.firstFailureAt = undefined;
    return { to: 'up', downForMs: now - this.downSince };
  }
}

import type { BalancerCandidate } from './balancer/balancer.js';
import { HealthState } from './health/health-state.js';
import type { GtidPosition } from './lag/gtid.js';
import type { LoadSignals } from './load/load-score.js';
import type { HealthCheckOptions } from './router-options.js';
import type { NodeConfig } from './topology.js';
import type { Behaviour, WarmUp } from './warm-up.js';

/** Weight of the newest observation in the moving averages (about the last 10 statements). */
const LATENCY_ALPHA = 0.1;
/** The error rate forgets more slowly (about the last 50 statements): errors are rarer. */
const ERROR_ALPHA = 0.02;
/** Heartbeat round trips (one a second: about the last 5 s). */
const RTT_ALPHA = 0.2;

/**
 * Everything the router knows about one node at run time: health, lag, load, warm-up and the
 * statements in flight. Mutated by the monitors and by `route` / `complete`; read by the
 * balancers through {@link BalancerCandidate}.
 */
export class NodeState implements BalancerCandidate {
  readonly name: string;
  readonly weight: number;
  readonly health: HealthState;
  inFlight = 0;
  /** Warm-up share in (0, 1]. */
  share = 1;
  /** 1 − load score (see `load/load-score.ts`). */
  loadFactor = 1;
  loadScore: number | undefined;
  loadSignals: LoadSignals | undefined;
  warmUp: WarmUp | undefined;
  /** Replication lag in milliseconds; undefined until measured (and always for the primary). */
  lagMs: number | undefined;
  /**
   * The last lag check could not read the node's replication state (`SHOW REPLICA STATUS`
   * refused for want of a privilege, failed, or timed out): its lag is unknown, and an unknown
   * lag is never taken for caught up, so the node gets no reads until a check succeeds.
   */
  lagUnknown = false;
  /** The newest GTID position the node is known to have applied (lag monitor, successful waits). */
  appliedPosition: GtidPosition | undefined;
  latencyMs: number | undefined;
  errorRate = 0;
  heartbeatRttMs: number | undefined;
  /** Statements routed here, by outcome, since start (for tests and the demo; metrics have the same). */
  routed = 0;

  constructor(
    readonly config: NodeConfig,
    health: HealthCheckOptions,
  ) {
    this.name = config.name;
    this.weight = config.weight;
    this.health = new HealthState(health);
  }

  get role(): NodeConfig['role'] {
    return this.config.role;
  }

  /** Records a finished statement in the moving averages. */
  observe(durationMs: number, failed: boolean): void {
    this.latencyMs = this.latencyMs === undefined ? durationMs : this.latencyMs + LATENCY_ALPHA * (durationMs - this.latencyMs);
    this.errorRate += ERROR_ALPHA * ((failed ? 1 : 0) - this.errorRate);
  }

  observeHeartbeat(rttMs: number): void {
    this.heartbeatRttMs = this.heartbeatRttMs === undefined ? rttMs : this.heartbeatRttMs + RTT_ALPHA * (rttMs - this.heartbeatRttMs);
  }

  get behaviour(): Behaviour {
    return { errorRate: this.errorRate, latencyMs: this.latencyMs };
  }
}

/** The mean behaviour of `peers` (undefined when there are none). */
export function meanBehaviour(peers: readonly NodeState[]): Behaviour | undefined {
  if (peers.length === 0) return undefined;
  let errors = 0;
  let latency = 0;
  let measured = 0;
  for (const p of peers) {
    errors += p.errorRate;
    if (p.latencyMs !== undefined) {
      latency += p.latencyMs;
      measured++;
    }
  }
  return { errorRate: errors / peers.length, latencyMs: measured === 0 ? undefined : latency / measured };
}

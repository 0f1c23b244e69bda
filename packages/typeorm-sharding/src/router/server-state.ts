import { createBalancer } from './balancer/create-balancer.js';
import type { Balancer } from './balancer/balancer.js';
import type { GtidPosition } from './lag/gtid.js';
import { mergePositions } from './lag/gtid.js';
import { PrimaryPositions } from './lag/lag-estimate.js';
import { NodeState } from './node-state.js';
import type { HealthCheckOptions } from './router-options.js';
import type { NodeConfig, ServerConfig } from './topology.js';

/**
 * Run-time state of one server: its nodes, one balancer per read role, and the lists of nodes
 * eligible for reads, recomputed when health, lag or warm-up change (not per statement).
 */
export class ServerState {
  readonly primary: NodeState;
  readonly replicas: NodeState[];
  readonly analytics: NodeState[];
  readonly replicaBalancer: Balancer;
  readonly analyticsBalancer: Balancer;
  /** Healthy, caught-up replicas (lag measured within the threshold, or not checked yet) with weight > 0, in configuration order. */
  eligibleReplicas: readonly NodeState[] = [];
  eligibleAnalytics: readonly NodeState[] = [];
  /** The newest GTID position any write through this router produced on the server. */
  lastWrite: GtidPosition | undefined;
  /** The primary's positions over time, for replica lag. */
  readonly primaryPositions = new PrimaryPositions();
  /** Time of the first write through this router whose GTID is unknown, until a polled position covers it. */
  unknownWriteSince: number | undefined;
  /** The primary's `@@gtid_binlog_pos` as last polled by the lag monitor, and when the poll was sent. */
  polled: { readonly at: number; readonly position: GtidPosition } | undefined;

  constructor(
    readonly config: ServerConfig,
    health: HealthCheckOptions,
  ) {
    this.primary = new NodeState(config.primary, health);
    this.replicas = config.replicas.map((n) => new NodeState(n, health));
    this.analytics = config.analytics.map((n) => new NodeState(n, health));
    this.replicaBalancer = createBalancer(config.replicaBalancer);
    this.analyticsBalancer = createBalancer(config.analyticsBalancer);
  }

  get name(): string {
    return this.config.name;
  }

  /** Every node, primary first. */
  get nodes(): NodeState[] {
    return [this.primary, ...this.replicas, ...this.analytics];
  }

  /** Adds a node at run time (it starts warming up; see `QueryRouter.addNode`). */
  add(config: NodeConfig, health: HealthCheckOptions): NodeState {
    const node = new NodeState(config, health);
    (config.role === 'analytics' ? this.analytics : this.replicas).push(node);
    return node;
  }

  /** Recomputes the eligible lists. */
  refresh(maxLagMs: number): void {
    const eligible = (n: NodeState) => n.health.isUp && n.weight > 0 && !n.lagUnknown && (n.lagMs === undefined || n.lagMs <= maxLagMs);
    this.eligibleReplicas = this.replicas.filter(eligible);
    this.eligibleAnalytics = this.analytics.filter(eligible);
  }

  noteWrite(position: GtidPosition, at: number): void {
    this.lastWrite = this.lastWrite === undefined ? position : mergePositions(this.lastWrite, position);
    this.primaryPositions.add(at, position);
  }

  /** A write finished at `at` whose GTID is unknown: reads that must see it go to the primary until a poll covers it. */
  noteUnknownWrite(at: number): void {
    this.unknownWriteSince ??= at;
  }

  /**
   * The lag monitor read the primary's binlog position with a poll sent at `at`: it covers
   * every write that had finished before then, so it stands for those whose GTID is unknown
   * (strictly before: a poll sent at the very time a write finished may have been answered first).
   */
  notePolledPosition(at: number, position: GtidPosition): void {
    this.polled = { at, position };
    this.primaryPositions.add(at, position);
    if (this.unknownWriteSince !== undefined && at > this.unknownWriteSince) {
      this.lastWrite = this.lastWrite === undefined ? position : mergePositions(this.lastWrite, position);
      this.unknownWriteSince = undefined;
    }
  }

  /** A position covering every write finished by `since`, if a poll sent after it is known. */
  positionCovering(since: number): GtidPosition | undefined {
    return this.polled !== undefined && this.polled.at > since ? this.polled.position : undefined;
  }
}

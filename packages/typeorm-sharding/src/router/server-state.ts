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
  /** Healthy, caught-up replicas with weight > 0, in configuration order. */
  eligibleReplicas: readonly NodeState[] = [];
  eligibleAnalytics: readonly NodeState[] = [];
  /** The newest GTID position any write through this router produced on the server. */
  lastWrite: GtidPosition | undefined;
  /** The primary's positions over time, for replica lag. */
  readonly primaryPositions = new PrimaryPositions();

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
    const eligible = (n: NodeState) => n.health.isUp && n.weight > 0 && (n.lagMs === undefined || n.lagMs <= maxLagMs);
    this.eligibleReplicas = this.replicas.filter(eligible);
    this.eligibleAnalytics = this.analytics.filter(eligible);
  }

  noteWrite(position: GtidPosition, at: number): void {
    this.lastWrite = this.lastWrite === undefined ? position : mergePositions(this.lastWrite, position);
    this.primaryPositions.add(at, position);
  }
}

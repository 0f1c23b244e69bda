import type { Secret } from './secret.js';

/**
 * What a node of a server is for. A MySQL replica copies the whole server (every shard
 * database on it), so roles belong to nodes of a server, never to shards.
 * - `primary`: takes writes, DDL, locking reads and transactions;
 * - `replica`: a read replica, chosen by the server's replica balancer;
 * - `analytics`: a replica kept for long aggregate scans (the article's columnar nodes), with
 *   a pool of its own so that long statements never wait behind or block short ones.
 */
export type NodeRole = 'primary' | 'replica' | 'analytics';

/** Names of the balancers a server can use for its replicas (the article's `loadBalance`). */
export type BalancerName = 'round_robin' | 'random' | 'weighted_round_robin' | 'least_outstanding' | 'load_score' | 'order';

/** Every balancer name, for validation messages. */
export const BALANCER_NAMES: readonly BalancerName[] = ['round_robin', 'random', 'weighted_round_robin', 'least_outstanding', 'load_score', 'order'];

/** Connection facts of one node: one mysql2 pool is opened per node. */
export interface NodeConfig {
  /** Name of the node, unique in the whole topology (it labels metrics and events). */
  readonly name: string;
  readonly role: NodeRole;
  /** The server the node belongs to. */
  readonly server: string;
  readonly host: string;
  /** @default 3306 */
  readonly port: number;
  /** @default 'root' */
  readonly user: string;
  /** Never printed; see {@link Secret}. */
  readonly password: Secret;
  /**
   * Connections of this node's pool.
   * @default 10 (mysql2's default `connectionLimit`)
   */
  readonly poolSize: number;
  /**
   * Relative share of reads among the server's replicas (for `weighted_round_robin` and as
   * the base of `load_score` and `least_outstanding`). 0 takes the node out of rotation
   * (it stays monitored and can still be forced by a sticky session that already uses it).
   * @default 1
   */
  readonly weight: number;
  /** Default database of the pool's connections, if any (statements qualify shard tables anyway). */
  readonly database: string | undefined;
}

/** One server: a primary and its replicas. */
export interface ServerConfig {
  readonly name: string;
  readonly primary: NodeConfig;
  /** Read replicas, in configuration order (the order `order` balancing follows). */
  readonly replicas: readonly NodeConfig[];
  /** Analytics replicas; empty when none are configured or `columnar.enable` is false. */
  readonly analytics: readonly NodeConfig[];
  /** @default 'load_score' */
  readonly replicaBalancer: BalancerName;
  /** @default 'least_outstanding' (analytics statements are long: count them, do not rotate blindly) */
  readonly analyticsBalancer: BalancerName;
}

/** Every node of a server, primary first. */
export function nodesOf(server: ServerConfig): readonly NodeConfig[] {
  return [server.primary, ...server.replicas, ...server.analytics];
}

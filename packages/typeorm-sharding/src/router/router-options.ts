import type { ServerConfig } from './topology.js';

/** Heartbeats and failure detection (the article's `healthCheck` block). */
export interface HealthCheckOptions {
  /** Time between two heartbeats of a node. @default 1000 */
  readonly intervalMs: number;
  /** A heartbeat that takes longer counts as a miss. @default 500 */
  readonly timeoutMs: number;
  /** Consecutive missed heartbeats that mark a node down (the article's `retry`). @default 3 */
  readonly failureThreshold: number;
  /** Consecutive good heartbeats that bring a down node back (into warm-up). @default 2 */
  readonly successThreshold: number;
  /**
   * Consecutive connection errors of real statements on a node that mark it down before the
   * heartbeat does (TypeORM's `removeNodeErrorCount`). 0 disables it.
   * @default 5 (mysql2's pool-cluster default)
   */
  readonly errorThreshold: number;
  /**
   * A node marked down stays out at least this long, whatever its heartbeats say
   * (TypeORM's `restoreNodeTimeout`, which mysql2 uses the same way).
   * @default 0
   */
  readonly minDownMs: number;
}

/** Replication lag and read-your-writes (the article's §3.3). */
export interface ConsistencyOptions {
  /**
   * A replica whose measured lag exceeds this gets no reads until it catches up.
   * @default 1000
   */
  readonly maxReplicationLagMs: number;
  /** Time between two lag measurements (`SHOW REPLICA STATUS`, GTID positions). @default 1000 */
  readonly lagCheckIntervalMs: number;
  /**
   * When a read on a replica waits for the writes it must see (`MASTER_GTID_WAIT`):
   * - `hint`: only with `CONSISTENT_READ` (a comment or `withRouting({ consistentRead: true })`);
   * - `session`: also every read in a routing scope (or session) that has written before;
   * - `global`: every replica read waits for the newest write this router has seen on the server.
   * @default 'hint'
   */
  readonly readYourWrites: 'hint' | 'session' | 'global';
  /** How long a consistent read waits on a replica before it goes to the primary. @default 250 */
  readonly waitTimeoutMs: number;
}

/** Which reads go to analytics replicas (the article's columnar routing, §2.2.2). */
export interface AnalyticsRule {
  /** Reads with aggregate functions. @default true */
  readonly aggregates: boolean;
  /** Reads with GROUP BY. @default true */
  readonly groupBy: boolean;
  /** Reads without a usable shard-key condition (they scan every shard). @default true */
  readonly fullScans: boolean;
  /**
   * Reads that reach at least this many shards, whatever their shape. An aggregate or
   * GROUP BY read that reaches fewer shards than `minShardsForAggregates` stays on the
   * replicas (a `COUNT(*)` of one customer's orders is a point read).
   * @default 8
   */
  readonly minShards: number;
  /** @default 2 */
  readonly minShardsForAggregates: number;
}

/** Warm-up of a node that is new or back from down (the article's §4.2). */
export interface WarmUpOptions {
  /** Time from the first share to the full share when the node behaves. @default 300000 (5 minutes) */
  readonly durationMs: number;
  /** Share of its full traffic a node gets at first. @default 0.1 */
  readonly initialShare: number;
  /** Number of increments from `initialShare` to 1 (one every `durationMs / steps`). @default 5 */
  readonly steps: number;
  /**
   * A step is held back while the node's latency moving average exceeds its peers' mean by
   * this factor. @default 1.5
   */
  readonly latencyTolerance: number;
  /** A step is held back while the node's error rate exceeds its peers' by this much (absolute). @default 0.01 */
  readonly errorRateTolerance: number;
}

/** The article's load score (§2.2.3). */
export interface LoadScoreOptions {
  /** How often the servers' counters are sampled and weights recomputed. @default 5000 */
  readonly refreshIntervalMs: number;
  /** Weights of the four terms; they should add up to 1. @default cpu 0.4, connections 0.3, io 0.2, latency 0.1 */
  readonly weights: { readonly cpu: number; readonly connections: number; readonly io: number; readonly latency: number };
}

/** Everything the router needs, validated and with every default filled in. */
export interface RouterConfig {
  readonly servers: readonly ServerConfig[];
  readonly health: HealthCheckOptions;
  readonly consistency: ConsistencyOptions;
  readonly analytics: AnalyticsRule;
  readonly warmUp: WarmUpOptions;
  readonly loadScore: LoadScoreOptions;
  /**
   * Where plain reads go by default (TypeORM's `replication.defaultMode`): `replica`, or
   * `primary` (then only `FORCE_SLAVE` reads use replicas).
   * @default 'replica'
   */
  readonly defaultReads: 'replica' | 'primary';
  /**
   * A read whose replica failed with a connection error (not an SQL error) before any row was
   * delivered is tried once more on another healthy node (TypeORM's `canRetry`).
   * @default true
   */
  readonly retryReads: boolean;
  /** Statement shapes whose routing class is remembered (the article's route cache). @default 1000 */
  readonly routeCacheSize: number;
}

export const DEFAULT_HEALTH: HealthCheckOptions = Object.freeze({
  intervalMs: 1000,
  timeoutMs: 500,
  failureThreshold: 3,
  successThreshold: 2,
  errorThreshold: 5,
  minDownMs: 0,
});

export const DEFAULT_CONSISTENCY: ConsistencyOptions = Object.freeze({
  maxReplicationLagMs: 1000,
  lagCheckIntervalMs: 1000,
  readYourWrites: 'hint',
  waitTimeoutMs: 250,
});

export const DEFAULT_ANALYTICS: AnalyticsRule = Object.freeze({
  aggregates: true,
  groupBy: true,
  fullScans: true,
  minShards: 8,
  minShardsForAggregates: 2,
});

export const DEFAULT_WARM_UP: WarmUpOptions = Object.freeze({
  durationMs: 300_000,
  initialShare: 0.1,
  steps: 5,
  latencyTolerance: 1.5,
  errorRateTolerance: 0.01,
});

export const DEFAULT_LOAD_SCORE: LoadScoreOptions = Object.freeze({
  refreshIntervalMs: 5000,
  weights: Object.freeze({ cpu: 0.4, connections: 0.3, io: 0.2, latency: 0.1 }),
});

import type { Registry } from 'prom-client';
import type { RouterMetrics } from '../metrics.js';
import type { RouterConfig } from '../router-options.js';
import type { Secret } from '../secret.js';
import type { BalancerName } from '../topology.js';

/**
 * A read replica or analytics replica of a server (`servers[i].replicas`, `servers[i].analytics`).
 * Every key but `host` may be left out: it is then the server's own (a replica on the same
 * host needs only its `port`).
 */
export interface ReplicaOptions {
  /** Names the node in metrics, events and `onPhysicalQuery`. @default `<server>-replica<n>` / `<server>-analytics<n>` (1-based) */
  readonly name?: string;
  /** @default the server's host */
  readonly host?: string;
  /** @default the server's port */
  readonly port?: number;
  /** @default the server's username */
  readonly username?: string;
  /** @default the server's password */
  readonly password?: string | Secret;
  /** Connections of this node's own pool. @default the server's poolSize (10) */
  readonly poolSize?: number;
  /** Relative share of reads among the server's replicas; 0 takes it out of rotation. @default 1 */
  readonly weight?: number;
}

/** Where the router's Prometheus metrics go. */
export interface RoutingMetricsOptions {
  /** @default a Registry of the data source's own (`ds.routerMetrics.registry`) */
  readonly registry?: Registry;
  /** @default 'typeorm_sharding_router_' */
  readonly prefix?: string;
}

/**
 * `sharding.router`: how the query router of each server picks the node of a statement
 * (docs/router.md). The keys are the YAML file's (`healthCheck.interval` …), so that a setting
 * reads the same in code and in the file. Every key is optional.
 */
export interface ShardingRouterOptions {
  /**
   * A configuration already read with `readRouterConfig` or `loadRouterYaml` (what
   * `ShardedDataSource.fromYaml` passes): its servers and nodes make up the data source's
   * servers, its options the router's. Only `metrics` may be given beside it.
   */
  readonly config?: RouterConfig;
  /** Balancer of the replicas of servers that name none. @default 'load_score' (the article's load score) */
  readonly loadBalance?: BalancerName;
  /** Heartbeats: `interval` 1000 ms, `timeout` 500 ms, `retry` 3 misses → down, `rise` 2 → up, `errorThreshold` 5 connection errors → down, `minDown` 0 ms. */
  readonly healthCheck?: {
    readonly interval?: number;
    readonly timeout?: number;
    readonly retry?: number;
    readonly rise?: number;
    readonly errorThreshold?: number;
    readonly minDown?: number;
  };
  /** A replica lagging more than this gets no reads. @default 1000 */
  readonly maxReplicationLagMs?: number;
  /** Time between two lag checks, in ms. @default 1000 */
  readonly lagCheckInterval?: number;
  /**
   * Which reads wait on a replica for the writes before them (GTID, `MASTER_GTID_WAIT`):
   * `hint` only `CONSISTENT_READ` ones; `session` also every read in a `withRouting` scope that
   * wrote before; `global` every replica read (the newest write seen on the server).
   * @default 'hint'
   */
  readonly readYourWrites?: 'hint' | 'session' | 'global';
  /** How long a consistent read waits on a replica before it reads the primary, in ms. @default 250 */
  readonly consistentReadTimeout?: number;
  /** Which reads go to analytics replicas. @default { aggregates: true, groupBy: true, fullScans: true, minShards: 8, minShardsForAggregates: 2 } */
  readonly analytics?: {
    readonly aggregates?: boolean;
    readonly groupBy?: boolean;
    readonly fullScans?: boolean;
    readonly minShards?: number;
    readonly minShardsForAggregates?: number;
  };
  /** Where plain reads go: replicas, or the primary (then only `FORCE_SLAVE` reads use replicas). @default 'replica' */
  readonly defaultReads?: 'replica' | 'primary';
  /** Retry a read once on another node after a connection error (never after rows were delivered). @default true */
  readonly retryReads?: boolean;
  /** Statement shapes whose routing class is remembered. @default 1000 */
  readonly routeCacheSize?: number;
  /** A node new or back from down: `initialShare` 0.1 of its share, raised in `steps` 5 over `duration` 300000 ms. */
  readonly warmUp?: {
    readonly duration?: number;
    readonly initialShare?: number;
    readonly steps?: number;
    readonly latencyTolerance?: number;
    readonly errorRateTolerance?: number;
  };
  /** The load score: `refreshInterval` 5000 ms, `weights` { cpu 0.4, connections 0.3, io 0.2, latency 0.1 }. */
  readonly loadScore?: {
    readonly refreshInterval?: number;
    readonly weights?: { readonly cpu?: number; readonly connections?: number; readonly io?: number; readonly latency?: number };
  };
  /** A RouterMetrics to share, or where to create the data source's. @default a registry of its own */
  readonly metrics?: RouterMetrics | RoutingMetricsOptions;
}

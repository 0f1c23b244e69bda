import type { TopologyOptions } from '../topology/topology-options.js';
import type { MysqlDataSourceOptions } from 'typeorm/driver/mysql/MysqlDataSourceOptions.js';
import type { BetterSqlite3DataSourceOptions } from 'typeorm/driver/better-sqlite3/BetterSqlite3DataSourceOptions.js';
import type { PhysicalQueryLogLevel } from '../log/physical-query-log.js';
import type { KeyGeneratorOptions } from '../keys/key-generator-options.js';
import type { TableLayoutOption } from '../algorithms/index.js';
import type { ReplicaOptions, ShardingRouterOptions } from '../router/config/routing-options.js';
import type { RouteReason } from '../router/decision/decide-role.js';
import type { RoutingHintName } from '../router/hints/hint.js';
import type { RouteFallback } from '../router/route-target.js';
import type { Secret } from '../router/secret.js';
import type { BalancerName, NodeRole } from '../router/topology.js';
import type { TransactionOptions } from '../transactions/transaction-options.js';
import type { IndexMetricsOptions } from '../indexes/index-metrics.js';

/** One physical statement as it ran on a shard, reported through `onPhysicalQuery`. */
export interface PhysicalQueryEvent {
  /** Shard name (the first shard of a coalesced statement). */
  readonly shard: string;
  /** The server the statement ran on (SQLite: the shard's name). */
  readonly server: string;
  /** The shards the statement covered: one, or each shard of a coalesced `UNION ALL` (see `sharding.coalesce`). */
  readonly shards: readonly string[];
  /** A coalesced statement: the statement of each shard it carries, as each would have run alone. */
  readonly branches?: readonly { readonly shard: string; readonly sql: string; readonly parameters: readonly unknown[] }[];
  /** The SQL sent to the shard. */
  readonly sql: string;
  /** The parameters sent with it. */
  readonly parameters: readonly unknown[];
  /** Wall time of the statement on the shard, in milliseconds. */
  readonly durationMs: number;
  /** Rows returned (SELECT) or affected (writes). */
  readonly rowCount: number;
  /** The error, when the statement failed. */
  readonly error?: unknown;
  /** With the query router (replicas configured, or `sharding.router`): the node that ran the statement. */
  readonly node?: string;
  /** With the query router: that node's role (`primary`, `replica`, `analytics`). */
  readonly role?: NodeRole;
  /** With the query router: the rule that chose the role (`read`, `write`, `transaction`, `hint:FORCE_MASTER`, `analytics`, …). */
  readonly reason?: RouteReason;
  /** With the query router: why the statement did not run where its rule sent it (`no-replica`, `consistency-timeout`, `retry`, …). */
  readonly fallback?: RouteFallback;
  /** With the query router: the routing hints that applied (the statement's comment and the `withRouting` scope). */
  readonly hints?: readonly RoutingHintName[];
}

/** Sharding behaviour of a ShardedDataSource. */
export interface ShardingOptions {
  /**
   * Window of physical statements in flight per logical query.
   * @default the number of CPU cores (as in the PolarDB-X article)
   */
  readonly concurrency?: number;
  /**
   * Cap on physical statements in flight across all logical queries of this data source.
   * @default Infinity (no global cap)
   */
  readonly globalConcurrency?: number;
  /**
   * Most values of one IN list sent in one physical statement; longer per-shard lists are
   * split into batches (large IN lists make a shard scan the table instead of the index).
   * @default 256
   */
  readonly maxInValuesPerQuery?: number;
  /**
   * Give each shard only its own IN values. `false` sends the whole list to every shard
   * (the naive baseline the article compares against); results are the same.
   * @default true
   */
  readonly pruning?: boolean;
  /**
   * Number of statement shapes whose plans are cached (LRU).
   * @default 1000
   */
  readonly planCacheSize?: number;
  /**
   * On MySQL/MariaDB, a page spread over several shards whose OFFSET + LIMIT exceeds this many
   * rows is streamed from the shards into the merge, so memory stays at shards × a small buffer.
   * @default 1000
   */
  readonly streamThreshold?: number;
  /**
   * A page spread over several shards with a deep OFFSET is read by windows: each shard sends
   * the rows around the page's expected place in it (`LIMIT start, rows`, about
   * `offset / shards ± 2·√offset`) instead of its first `offset + count`, and the page is cut
   * exactly from them; when the shards' rows are too skewed for the windows to prove the page,
   * the read runs again the plain way. False: always the plain way (`LIMIT offset + count`).
   * @default true
   */
  readonly pageWindows?: boolean;
  /**
   * MySQL/MariaDB: a scattered read sends the statements of the shards that share a server as
   * one round trip, a `(…) UNION ALL (…)` with database-qualified table names (PolarDB-X's
   * MERGE_UNION), for every read shape the merge supports: rows, ORDER BY (each server returns
   * one sorted stream for the k-way merge), pages, aggregates, GROUP BY, DISTINCT, streamed deep
   * pages. `maxBranches` caps the shards per statement (a server with more gets several
   * statements, run in parallel). `false` sends one statement per shard. `onPhysicalQuery`
   * reports one event per round trip, with the server and the shards it covered.
   * @default { maxBranches: 16 }, raised to ⌈shards of the server / (4 × concurrency)⌉ for a
   * server with more shards than that (1,024 shards, concurrency 2: 128), so that a scatter
   * over all of them costs a few round trips per concurrency slot, not one per 16 shards
   */
  readonly coalesce?: boolean | { readonly maxBranches?: number };
  /**
   * Most distinct values an uncorrelated `x IN (SELECT …)` over sharded tables may return: the
   * subquery runs first and its values are written into the statement that runs next (as
   * literals or parameters; SQLite allows at most 32766 parameters per statement). A subquery
   * that returns more is refused with `UnsupportedShardingError` before that statement runs.
   * @default 10000
   */
  readonly maxSubqueryValues?: number;
  /**
   * How many owners of unique global index values are remembered (least recently used first
   * out), so that a repeated `findOneBy({ email })` reads the owner's shard straight away: one
   * round trip instead of two. The remembered owner is only a guess that the read checks: its
   * row holds the value, and a unique value has one row in all shards; a read that finds
   * nothing forgets the guess and reads the lookup table (three round trips that once). Used
   * outside transactions, for SELECTs that pin each column of a unique index with one `=` and
   * neither lock nor aggregate without GROUP BY. 0 turns it off.
   * @default 10000
   */
  readonly rememberedOwners?: number;
  /** Called after every physical statement (success or failure). Keep it cheap: it runs on the query path. */
  readonly onPhysicalQuery?: (event: PhysicalQueryEvent) => void;
  /**
   * Whether and how physical statements are logged through the data source's `logger`. Each
   * logical statement is always logged as TypeORM logs it (`logging`, custom loggers,
   * `maxQueryExecutionTime`); this adds one entry per statement a shard ran:
   * - `false`: none;
   * - `'query'`: as TypeORM logs a statement (`logQuery`, `logQueryError`, `logQuerySlow` against
   *   `maxQueryExecutionTime`), the SQL prefixed with `/* shard <name> *\/`, so that
   *   `logging: ['query']` shows both levels and `logging: ['error']` the failed shard statements;
   * - `'log'`, `'info'`, `'warn'`: one `logger.log(level, …)` line per statement with the shard, the
   *   duration and the row count (shown when `logging` includes that level).
   * @default false
   */
  readonly logPhysicalQueries?: PhysicalQueryLogLevel;
  /**
   * The Snowflake key generator behind `@Snowflake()` columns and `dataSource.keyGenerator`
   * (see docs/global-keys.md); required when an entity has a `@Snowflake()` column.
   * @default undefined (no generator)
   */
  readonly keyGenerator?: KeyGeneratorOptions;
  /**
   * Table-per-shard layouts by table name, as `@Sharded({ tables })` declares them (and in place
   * of what the decorator says): `{ orders: 4 }` lays `orders` out as `orders_0 … orders_3` in
   * every shard database, `{ orders: { count: 8, name: 't_order_{index}' } }` names them by a
   * pattern. For layouts that belong to a deployment rather than to the entity's code.
   * @default {} (the decorators' layouts)
   */
  readonly tables?: Readonly<Record<string, TableLayoutOption>>;
  /**
   * MySQL/MariaDB partitions by table name, as `@Sharded({ partitions })` declares them (and in
   * place of what the decorator says): `{ orders: 16 }` makes `orders` in every shard database
   * `PARTITION BY KEY (shard key) PARTITIONS 16`. For partitioning that belongs to a deployment
   * rather than to the entity's code.
   * @default {} (the decorators' partitions)
   */
  readonly partitions?: Readonly<Record<string, number>>;
  /**
   * MySQL/MariaDB: the query router's options (see docs/router.md): which node of a server —
   * primary, read replica, analytics replica — runs each statement. The router is on when a
   * server lists `replicas` or `analytics`, when TypeORM's `replication` is given, or when this
   * is set; otherwise every statement runs on the server as before.
   * @default undefined
   */
  readonly router?: ShardingRouterOptions;
  /**
   * How transactions that touch several servers (SQLite: several shard files) commit: atomically
   * (XA two-phase commit with a decision log and a resolver on MySQL/MariaDB; one transaction of
   * attached databases on SQLite), or server after server. See the README's "Transactions across
   * servers".
   * @default { crossServer: 'atomic' }
   */
  readonly transactions?: TransactionOptions;
  /**
   * The shared, versioned topology (README, "Online resharding"): the bucket map and where each
   * shard lives are read at `initialize()` from metadata tables (on MySQL/MariaDB a server of
   * `servers`, database `typeorm_sharding_meta`; on SQLite `{ file }`), polled every `refreshMs`,
   * and writes the fence of a cutover refuses are retried under the new version.
   * @default undefined (the topology is the configuration's, fixed)
   */
  readonly topology?: TopologyOptions;
  /**
   * Where the global indexes' Prometheus metrics go (lookup hits and misses, checker findings
   * and repairs; see `ShardedDataSource.indexMetrics`).
   * @default { registry: a new Registry of its own, prefix: 'typeorm_sharding_index_' }
   */
  readonly indexMetrics?: IndexMetricsOptions;
}

/**
 * Connection options of one shard: a name plus the TypeORM options that differ per shard. On
 * MySQL/MariaDB a shard is a database on a server: either name the server (`server`, one of
 * `servers`) and the `database`, or give connection options; shards whose connection options
 * are the same but for the database share one server (one pool, one round trip, one local
 * transaction).
 */
export type ShardConnectionOptions =
  | ({ readonly name: string; readonly server?: string } & Partial<Omit<MysqlDataSourceOptions, 'type' | 'entities' | 'name'>>)
  | ({ readonly name: string } & Partial<Omit<BetterSqlite3DataSourceOptions, 'type' | 'entities' | 'name'>>);

/**
 * One MySQL/MariaDB server whose databases hold shards: a name the shards refer to, and the
 * TypeORM connection options of its pool (`host`, `port`, `username`, `password`, `poolSize` —
 * the pool every shard on it shares, @default 10 — …; no `database`).
 */
export type ServerOptions = { readonly name: string } & Partial<Omit<MysqlDataSourceOptions, 'type' | 'entities' | 'name' | 'database' | 'password' | 'replication'>> & {
  /** The password (a `Secret` from the YAML configuration is revealed only where the pool is opened). */
  readonly password?: string | Secret;
  /** Read replicas of the server: each has a pool of its own; reads outside transactions go to them (see `sharding.router`). */
  readonly replicas?: readonly ReplicaOptions[];
  /** Analytics replicas (the article's columnar nodes): aggregate / GROUP BY / full-scan reads over many shards, in pools of their own. */
  readonly analytics?: readonly ReplicaOptions[];
  /** Balancer of this server's replicas. @default `sharding.router.loadBalance` ('load_score') */
  readonly loadBalance?: BalancerName;
  /** Balancer of this server's analytics replicas. @default 'least_outstanding' */
  readonly analyticsLoadBalance?: BalancerName;
};

type CommonOmit = 'database' | 'name';

/** Options of a ShardedDataSource on MySQL or MariaDB. */
export type MysqlShardedOptions = Omit<MysqlDataSourceOptions, CommonOmit> & {
  readonly database?: string;
  /** The servers, when shards name them (see `ShardConnectionOptions`); otherwise inferred. */
  readonly servers?: readonly ServerOptions[];
  /**
   * TypeORM's own replication form, so that an existing configuration keeps working: `master`
   * is the one server every shard lives on, `slaves` its read replicas; `selector` (RR, RANDOM,
   * ORDER) picks the balancer, `canRetry`, `removeNodeErrorCount`, `restoreNodeTimeout` and
   * `defaultMode` map onto the router's options (see docs/router.md). Not with `servers`.
   */
  readonly replication?: MysqlDataSourceOptions['replication'];
  readonly shards: readonly ShardConnectionOptions[];
  readonly sharding?: ShardingOptions;
};

/** Options of a ShardedDataSource on embedded SQLite (the default for demos and tests). */
export type SqliteShardedOptions = Omit<BetterSqlite3DataSourceOptions, CommonOmit> & {
  readonly database?: string;
  readonly shards: readonly ShardConnectionOptions[];
  readonly sharding?: ShardingOptions;
};

/**
 * Options of a ShardedDataSource: ordinary TypeORM options shared by all shards, one entry
 * per shard in `shards` (first = default shard), and `sharding` for the plugin itself.
 */
export type ShardedDataSourceOptions = MysqlShardedOptions | SqliteShardedOptions;

import type { MysqlDataSourceOptions } from 'typeorm/driver/mysql/MysqlDataSourceOptions.js';
import type { BetterSqlite3DataSourceOptions } from 'typeorm/driver/better-sqlite3/BetterSqlite3DataSourceOptions.js';
import type { PhysicalQueryLogLevel } from '../log/physical-query-log.js';
import type { KeyGeneratorOptions } from '../keys/key-generator-options.js';

/** One physical statement as it ran on a shard, reported through `onPhysicalQuery`. */
export interface PhysicalQueryEvent {
  /** Shard name. */
  readonly shard: string;
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
   * MySQL/MariaDB: when several shards live on one server (same host, port and user, different
   * databases), a scattered plain read reaches each server in one round trip: the per-shard
   * statements are sent as one `UNION ALL` with database-qualified table names. Reads that
   * need ordering, grouping or paging across shards are not combined. `onPhysicalQuery` then
   * reports one event per server (named after its first shard).
   * @default false
   */
  readonly combinePerServer?: boolean;
  /**
   * Most distinct values an uncorrelated `x IN (SELECT …)` over sharded tables may return: the
   * subquery runs first and its values are written into the statement that runs next (as
   * literals or parameters; SQLite allows at most 32766 parameters per statement). A subquery
   * that returns more is refused with `UnsupportedShardingError` before that statement runs.
   * @default 10000
   */
  readonly maxSubqueryValues?: number;
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
}

/** Connection options of one shard: a name plus the TypeORM options that differ per shard. */
export type ShardConnectionOptions =
  | ({ readonly name: string } & Partial<Omit<MysqlDataSourceOptions, 'type' | 'entities' | 'name'>>)
  | ({ readonly name: string } & Partial<Omit<BetterSqlite3DataSourceOptions, 'type' | 'entities' | 'name'>>);

type CommonOmit = 'database' | 'name';

/** Options of a ShardedDataSource on MySQL or MariaDB. */
export type MysqlShardedOptions = Omit<MysqlDataSourceOptions, CommonOmit> & {
  readonly database?: string;
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

import { QueryRunnerAlreadyReleasedError, type QueryResult, type QueryRunner, type ReplicationMode } from 'typeorm';
import { MysqlQueryRunner } from 'typeorm/driver/mysql/MysqlQueryRunner.js';
import { BetterSqlite3QueryRunner } from 'typeorm/driver/better-sqlite3/BetterSqlite3QueryRunner.js';
import type { MysqlDriver } from 'typeorm/driver/mysql/MysqlDriver.js';
import type { BetterSqlite3Driver } from 'typeorm/driver/better-sqlite3/BetterSqlite3Driver.js';
import { Readable } from 'node:stream';
import type { ShardingEngine } from '../engine/sharding-engine.js';
import { ShardSession } from '../session/shard-session.js';
import type { CommitProtocol } from '../session/commit-protocol.js';
import { loggedParameters, withQueryLogging } from '../log/logical-query-log.js';

// TypeScript requires a mixin's base constructor to take `...args: any[]`.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyRunnerClass = abstract new (...args: any[]) => QueryRunner & { isReleased: boolean };

/**
 * Where a runner finds the engine to run a statement with: the data source swaps it when it
 * adopts a new topology version. `guard` (with a topology store) retries what the fence refused.
 */
export interface EngineSource {
  current(): ShardingEngine;
  guard?<T>(attempt: () => Promise<T>, inTransaction: () => boolean): Promise<T>;
  /** A transaction began on `engine` (`+1`) or ended (`-1`): the version it uses is still in use. */
  hold?(engine: ShardingEngine, delta: 1 | -1): void;
}

/**
 * The one interception point: every statement TypeORM runs through a ShardedDataSource
 * (find, QueryBuilder, save, transaction, raw query, schema inspection) arrives at `query()`.
 * The class extends the driver's own QueryRunner so that TypeORM's SQL generation and
 * transaction bookkeeping stay exactly as they are; only the execution is replaced.
 */
function withSharding<T extends AnyRunnerClass>(Base: T) {
  abstract class ShardingQueryRunner extends Base {
    abstract readonly engines: EngineSource;
    abstract readonly session: ShardSession;
    /** The engine a transaction started with: its statements stay on one topology version (internal). */
    pinnedEngine: ShardingEngine | undefined;

    /** The current engine; inside a transaction, the one it began with. */
    get engine(): ShardingEngine {
      const current = this.engines.current();
      if (!this.session.inTransaction) {
        this.unpinEngine();
        return current;
      }
      if (this.pinnedEngine === undefined) {
        this.pinnedEngine = current;
        this.engines.hold?.(current, 1);
      }
      return this.pinnedEngine;
    }

    /** Internal: the transaction ended; its engine's version is no longer held by this runner. */
    unpinEngine(): void {
      if (this.pinnedEngine === undefined) return;
      this.engines.hold?.(this.pinnedEngine, -1);
      this.pinnedEngine = undefined;
    }

    // TypeORM's QueryRunner contract: raw driver results are typed `any`.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    override async query(sql: string, parameters?: unknown[], useStructuredResult = false): Promise<any> {
      if (this.isReleased) throw new QueryRunnerAlreadyReleasedError();
      const attempt = () => this.engine.query(sql, parameters, this.session);
      const guard = this.engines.guard?.bind(this.engines);
      let result: QueryResult;
      try {
        result = await withQueryLogging(this, this.engine.dialect, sql, parameters, guard ? () => guard(attempt, () => this.session.inTransaction) : attempt);
      } finally {
        // COMMIT / ROLLBACK ended the transaction: its topology version is no longer in use here.
        if (!this.session.inTransaction) this.unpinEngine();
      }
      return useStructuredResult ? result : result.raw;
    }

    override async stream(sql: string, parameters?: unknown[], onEnd?: (...args: unknown[]) => void, onError?: (...args: unknown[]) => void): ReturnType<QueryRunner['stream']> {
      if (this.isReleased) throw new QueryRunnerAlreadyReleasedError();
      // As TypeORM's MySQL runner: the statement is logged when the stream opens.
      this.dataSource.logger.logQuery(sql, loggedParameters(this.engine.dialect, parameters), this);
      try {
        const stream = Readable.from(await this.engine.stream(sql, parameters, this.session));
        if (onEnd) stream.on('end', onEnd);
        if (onError) stream.on('error', onError);
        // TypeORM types the stream as fs.ReadStream; every driver returns some Readable.
        return stream as unknown as Awaited<ReturnType<QueryRunner['stream']>>;
      } catch (error) {
        onError?.(error);
        throw error;
      }
    }

    /** Shards are connected by the ShardedDataSource; nothing to acquire here. */
    override async connect(): Promise<undefined> {
      return undefined;
    }

    override async release(): Promise<void> {
      if (this.session.inTransaction) await this.session.abandon();
      this.unpinEngine();
      this.isReleased = true;
    }
  }
  return ShardingQueryRunner;
}

const MysqlBase = withSharding(MysqlQueryRunner);
const SqliteBase = withSharding(BetterSqlite3QueryRunner);

/** Sharding runner for mysql / mariadb shards. */
export class MysqlShardingQueryRunner extends MysqlBase {
  readonly session: ShardSession;
  constructor(driver: MysqlDriver, mode: ReplicationMode, readonly engines: EngineSource, protocol?: CommitProtocol) {
    super(driver, mode);
    this.session = new ShardSession(mode, 'mysql', { owner: this, protocol });
  }
}

/** Sharding runner for better-sqlite3 shards. */
export class SqliteShardingQueryRunner extends SqliteBase {
  readonly session: ShardSession;
  constructor(driver: BetterSqlite3Driver, mode: ReplicationMode, readonly engines: EngineSource, options: { protocol?: CommitProtocol; serialize?: <T>(work: () => Promise<T>) => Promise<T> } = {}) {
    super(driver);
    this.mode = mode;
    this.session = new ShardSession(mode, 'sqlite', { owner: this, ...options });
  }

  /**
   * The shared SQLite runner is never released (as TypeORM's own SQLite runner), but, as
   * TypeORM's, it forgets the tables it loaded for schema changes: raw DDL since may have
   * changed them.
   */
  override async release(): Promise<void> {
    this.loadedTables = [];
    this.clearSqlMemory();
  }

  /**
   * Migrations run with foreign keys off, on every shard. TypeORM's runner sets the pragma on
   * its one connection without logging it; so do these (through the engine, unlogged).
   */
  override async beforeMigration(): Promise<void> {
    await this.engine.query('PRAGMA foreign_keys = OFF', [], this.session);
  }

  override async afterMigration(): Promise<void> {
    await this.engine.query('PRAGMA foreign_keys = ON', [], this.session);
  }

  /**
   * Schema reads of `getTable`, `hasColumn` … (`PRAGMA table_xinfo("t")`): TypeORM's runner
   * asks its one connection directly; here the default shard answers, which holds every table.
   * Unlogged, as TypeORM's.
   */
  protected override async loadPragmaRecords(tablePath: string, pragma: string): Promise<Record<string, unknown>[]> {
    const [, tableName] = this.splitTablePath(tablePath);
    return (await this.engine.query(`PRAGMA ${pragma}("${tableName}")`, [], this.session)).raw as Record<string, unknown>[];
  }
}

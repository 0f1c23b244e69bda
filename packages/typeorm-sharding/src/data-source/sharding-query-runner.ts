import { QueryRunnerAlreadyReleasedError, type QueryResult, type QueryRunner, type ReplicationMode } from 'typeorm';
import { MysqlQueryRunner } from 'typeorm/driver/mysql/MysqlQueryRunner.js';
import { BetterSqlite3QueryRunner } from 'typeorm/driver/better-sqlite3/BetterSqlite3QueryRunner.js';
import type { MysqlDriver } from 'typeorm/driver/mysql/MysqlDriver.js';
import type { BetterSqlite3Driver } from 'typeorm/driver/better-sqlite3/BetterSqlite3Driver.js';
import { Readable } from 'node:stream';
import type { ShardingEngine } from '../engine/sharding-engine.js';
import { ShardSession } from '../session/shard-session.js';

type AnyRunnerClass = abstract new (...args: any[]) => QueryRunner & { isReleased: boolean };

/**
 * The one interception point: every statement TypeORM runs through a ShardedDataSource
 * (find, QueryBuilder, save, transaction, raw query, schema inspection) arrives at `query()`.
 * The class extends the driver's own QueryRunner so that TypeORM's SQL generation and
 * transaction bookkeeping stay exactly as they are; only the execution is replaced.
 */
function withSharding<T extends AnyRunnerClass>(Base: T) {
  abstract class ShardingQueryRunner extends Base {
    abstract readonly engine: ShardingEngine;
    abstract readonly session: ShardSession;

    override async query(sql: string, parameters?: any[], useStructuredResult = false): Promise<any> {
      if (this.isReleased) throw new QueryRunnerAlreadyReleasedError();
      const result: QueryResult = await this.engine.query(sql, parameters, this.session);
      return useStructuredResult ? result : result.raw;
    }

    override async stream(sql: string, parameters?: any[], onEnd?: (...args: any[]) => void, onError?: (...args: any[]) => void): Promise<any> {
      if (this.isReleased) throw new QueryRunnerAlreadyReleasedError();
      try {
        const stream = Readable.from(await this.engine.stream(sql, parameters, this.session));
        if (onEnd) stream.on('end', onEnd);
        if (onError) stream.on('error', onError);
        return stream;
      } catch (error) {
        onError?.(error);
        throw error;
      }
    }

    /** Shards are connected by the ShardedDataSource; nothing to acquire here. */
    override async connect(): Promise<any> {
      return undefined;
    }

    override async release(): Promise<void> {
      if (this.session.inTransaction) await this.session.abandon();
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
  constructor(driver: MysqlDriver, mode: ReplicationMode, readonly engine: ShardingEngine) {
    super(driver, mode);
    this.session = new ShardSession(mode, 'mysql');
  }
}

/** Sharding runner for better-sqlite3 shards. */
export class SqliteShardingQueryRunner extends SqliteBase {
  readonly session: ShardSession;
  constructor(driver: BetterSqlite3Driver, mode: ReplicationMode, readonly engine: ShardingEngine) {
    super(driver);
    this.mode = mode;
    this.session = new ShardSession(mode, 'sqlite');
  }

  /** The shared SQLite runner is never released (as TypeORM's own SQLite runner). */
  override async release(): Promise<void> {
    return undefined;
  }

  /** Migrations run with foreign keys off, on every shard (the base class talks to one connection). */
  override async beforeMigration(): Promise<void> {
    await this.query('PRAGMA foreign_keys = OFF');
  }

  override async afterMigration(): Promise<void> {
    await this.query('PRAGMA foreign_keys = ON');
  }
}

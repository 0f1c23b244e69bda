import { QueryFailedError, QueryResult, type DataSource, type QueryRunner, type ReplicationMode } from 'typeorm';
import { ShardingError } from '../errors/index.js';
import { mysqlQuery, queryWithServerText, rawResult, type MysqlQueryOptions } from './server-text.js';
import type { MysqlDriver } from 'typeorm/driver/mysql/MysqlDriver.js';
import type { BetterSqlite3Driver } from 'typeorm/driver/better-sqlite3/BetterSqlite3Driver.js';
import type { PooledConnection, ServerPool } from '../servers/server-pool.js';
import type { StatementDescriptor } from '../router/statement.js';
import type { NodePlacement } from './routing/node-placement.js';
import type { ServerNodes } from './routing/server-nodes.js';

/**
 * One shard as the executor sees it: a name and ways to run a statement. Kept apart from
 * DataSource so that tests can inject faults, and so that shards sharing a server can later
 * share one pool.
 */
export interface ShardTarget {
  readonly name: string;
  readonly index: number;
  /**
   * The server the shard lives on: shards of one server share its connections, a transaction
   * pins one connection per server, and `onPhysicalQuery` reports round trips per server.
   * SQLite: the shard's own name (each file is its own server).
   */
  readonly server: string;
  /** The shard's database on its server (MySQL), for statements that name tables without it. */
  readonly database?: string | undefined;
  /** The shard's own DataSource (schema sync, migrations, `getShardDataSource`). */
  readonly dataSource: DataSource;
  /** A runner for a whole transaction (pinned connection) or a stream. */
  createRunner(mode: ReplicationMode): QueryRunner;
  releaseRunner(runner: QueryRunner): Promise<void>;
  /** Runs one statement outside a transaction on a connection of its own. */
  execute(sql: string, parameters: readonly unknown[], mode: ReplicationMode, options?: ExecuteOptions): Promise<QueryResult>;
  /**
   * Asks the shard's database to compile `sql` without running it (SQLite `prepare`, MySQL's
   * prepared-statement protocol): resolves when it accepts the statement, rejects with the
   * database's error when it does not. Resolves too when the database cannot tell (MySQL
   * statements that cannot be prepared).
   */
  check(sql: string): Promise<void>;
  /**
   * True when `execute` runs on the connection a transaction of this shard uses (SQLite: one
   * connection per shard), so that it may serve statements inside the transaction too.
   */
  readonly executesOnTransactionConnection?: boolean;
  /**
   * Statements run synchronously in Node's own thread (better-sqlite3): a window of statements
   * in flight overlaps nothing, so the executor runs them one after the other.
   */
  readonly inProcess?: boolean;
  /**
   * In-process shards: `execute` without a promise (the result, or the error `execute` would
   * reject with, thrown), for the executor's loop over many shards outside a transaction.
   */
  readonly executeNow?: (sql: string, parameters: readonly unknown[], options?: ExecuteOptions) => QueryResult;
  /**
   * Makes the shard's database the default database of a runner's connection (a pinned
   * transaction connection of its server), for a statement that names tables without it.
   */
  useDatabaseOn?(runner: QueryRunner): Promise<void>;
  /**
   * MySQL with the query router: the server's nodes. `execute` then runs each statement on the
   * node the router picks; the executor routes statements of a transaction through it too.
   */
  readonly nodes?: ServerNodes | undefined;
  /**
   * MySQL: how many connections the server's pool has. A streamed read holds one per stream
   * until the merge has read it, so a read with more streams for one server than that is read
   * in full instead (`ShardingEngine.canStream`).
   */
  connectionLimit?(): number;
}

/** How `execute` reads results. */
export interface ExecuteOptions {
  /** SQLite: INTEGER values as bigint (see `PhysicalStatement.exactIntegers`). */
  readonly exactIntegers?: boolean;
  /** MySQL: dates and times as the server's text (see `PhysicalStatement.serverText`). */
  readonly serverText?: boolean;
  /**
   * The statement names tables without their database: run it on a connection whose default
   * database is the shard's (a server's connections are shared by its shards).
   */
  readonly unqualified?: boolean;
  /** With the query router: what it decides the node on (a statement without one runs on the primary). */
  readonly route?: StatementDescriptor | undefined;
  /** With the query router: told where the statement ran (also when it failed). */
  readonly placed?: ((where: NodePlacement) => void) | undefined;
}

/**
 * A ShardTarget over a plain TypeORM DataSource.
 *
 * Statements outside transactions go straight to the driver (mysql2's pool, better-sqlite3's
 * prepared statements) instead of through a TypeORM QueryRunner: a scattered query runs many
 * physical statements, and the runner's per-statement bookkeeping (logger, subscribers'
 * broadcast, result wrapping) is what one logical statement pays once, not per shard.
 * Anything unusual (replication, query timeouts) takes the runner path. A failure is raised
 * as the runner would raise it: a `QueryFailedError` of the statement and the driver's error.
 */
export function dataSourceTarget(name: string, index: number, dataSource: DataSource): ShardTarget {
  const timeout = queryTimeoutOf(dataSource);
  const viaRunner = async (sql: string, parameters: readonly unknown[], mode: ReplicationMode, executeOptions?: ExecuteOptions): Promise<QueryResult> => {
    const runner = dataSource.driver.createQueryRunner(mode);
    try {
      if (executeOptions?.serverText === true) return await queryWithServerText(runner, sql, parameters, timeout);
      return (await runner.query(sql, parameters as unknown[], true)) as QueryResult;
    } finally {
      await runner.release();
    }
  };
  const base = {
    name,
    index,
    server: name,
    dataSource,
    createRunner: (mode: ReplicationMode) => dataSource.driver.createQueryRunner(mode),
    releaseRunner: (runner: QueryRunner) => runner.release(),
  };
  const type = dataSource.options.type;
  if (type === 'mysql' || type === 'mariadb') {
    return { ...base, execute: mysqlExecutor(dataSource.driver as MysqlDriver, viaRunner), check: mysqlCheck(poolConnection(dataSource.driver as MysqlDriver)) };
  }
  if (type === 'better-sqlite3') {
    const executeNow = sqliteExecutor(dataSource.driver as BetterSqlite3Driver);
    const execute: Execute = async (sql, parameters, _mode, options) => executeNow(sql, parameters, options);
    return { ...base, execute, executeNow, check: sqliteCheck(dataSource.driver as BetterSqlite3Driver), executesOnTransactionConnection: true, inProcess: true };
  }
  return { ...base, execute: viaRunner, check: async () => undefined };
}

/**
 * A shard that shares its server's pool (see `servers/server-pool.ts`): statements with
 * database-qualified tables run on any connection of the server, others on one whose default
 * database is the shard's; transactions run on the server's DataSource runners.
 */
export function serverShardTarget(name: string, index: number, database: string, server: ServerPool, serverSource: DataSource, shardSource: DataSource, nodes?: ServerNodes): ShardTarget {
  const driver = serverSource.driver as MysqlDriver;
  const options = driver.options as { enableQueryTimeout?: boolean; maxQueryExecutionTime?: number };
  const viaRunner = async (sql: string, parameters: readonly unknown[], mode: ReplicationMode, unqualified: boolean, serverText: boolean): Promise<QueryResult> => {
    const runner = (unqualified ? shardSource : serverSource).driver.createQueryRunner(mode);
    try {
      if (serverText) return await queryWithServerText(runner, sql, parameters, queryTimeoutOf(serverSource));
      return (await runner.query(sql, parameters as unknown[], true)) as QueryResult;
    } finally {
      await runner.release();
    }
  };
  return {
    name,
    index,
    server: server.name,
    database,
    dataSource: shardSource,
    createRunner: (mode) => driver.createQueryRunner(mode),
    releaseRunner: (runner) => runner.release(),
    nodes,
    connectionLimit: () => server.connectionLimit,
    execute: async (sql, parameters, mode, executeOptions) => {
      const unqualified = executeOptions?.unqualified === true;
      if (nodes) {
        try {
          return resultOf(await nodes.query(sql, parameters, unqualified ? database : undefined, executeOptions?.route ?? ON_PRIMARY, mode, executeOptions?.placed, executeOptions?.serverText));
        } catch (error) {
          if (error instanceof ShardingError) throw error;
          throw new QueryFailedError(sql, parameters as unknown[], error as Error);
        }
      }
      const serverText = executeOptions?.serverText === true;
      if (options.enableQueryTimeout && options.maxQueryExecutionTime) return viaRunner(sql, parameters, mode, unqualified, serverText);
      try {
        return resultOf(await server.query(sql, parameters, unqualified ? database : undefined, serverText));
      } catch (error) {
        throw new QueryFailedError(sql, parameters as unknown[], error as Error);
      }
    },
    check: mysqlCheck(() => server.connection(database) as Promise<PooledConnection & MysqlCheckConnection>),
    useDatabaseOn: async (runner) => server.use((await runner.connect()) as PooledConnection, database),
  };
}

/** What the router is told of a statement the engine sent without a descriptor (schema probes): it runs on the primary. */
export const ON_PRIMARY: StatementDescriptor = Object.freeze({ kind: 'other' });

const resultOf = rawResult;

/** TypeORM's query timeout of a MySQL DataSource (`maxQueryExecutionTime` with `enableQueryTimeout`), which its runner sends per query. */
export function queryTimeoutOf(dataSource: DataSource): number | undefined {
  const options = dataSource.options as { enableQueryTimeout?: boolean; maxQueryExecutionTime?: number };
  return options.enableQueryTimeout && options.maxQueryExecutionTime ? options.maxQueryExecutionTime : undefined;
}

/** MySQL's error for a statement the prepared-statement protocol does not take (it says nothing of the syntax). */
const ER_UNSUPPORTED_PS = 1295;

interface MysqlCheckPool {
  getConnection(callback: (error: Error | null, connection: MysqlCheckConnection) => void): void;
}
interface MysqlCheckConnection {
  prepare(sql: string, callback: (error: (Error & { errno?: number }) | null, statement?: { close(): void }) => void): void;
  release(): void;
}

/** Checks statements on a connection from `connect` (its default database is the shard's). */
function mysqlCheck(connect: () => Promise<MysqlCheckConnection | undefined>): ShardTarget['check'] {
  return async (sql) => {
    const connection = await connect();
    if (!connection) return;
    await new Promise<void>((resolve, reject) => {
      connection.prepare(sql, (error, statement) => {
        statement?.close();
        connection.release();
        if (error && error.errno !== ER_UNSUPPORTED_PS) reject(new QueryFailedError(sql, [], error));
        else resolve();
      });
    });
  };
}

/** A connection of a DataSource's own pool (undefined when the driver has none). */
function poolConnection(driver: MysqlDriver): () => Promise<MysqlCheckConnection | undefined> {
  return () =>
    new Promise((resolve, reject) => {
      const pool = (driver as unknown as { pool?: MysqlCheckPool }).pool;
      if (!pool) return resolve(undefined);
      pool.getConnection((error, connection) => (error ? reject(error) : resolve(connection)));
    });
}

function sqliteCheck(driver: BetterSqlite3Driver): ShardTarget['check'] {
  return async (sql) => {
    try {
      (driver.databaseConnection as { prepare(sql: string): unknown }).prepare(sql);
    } catch (error) {
      throw new QueryFailedError(sql, [], error as Error);
    }
  };
}

type Execute = ShardTarget['execute'];

interface MysqlPool {
  query(sql: string | MysqlQueryOptions, values: unknown, callback: (error: Error | null, raw: unknown) => void): void;
}

function mysqlExecutor(driver: MysqlDriver, fallback: Execute): Execute {
  const options = driver.options as { enableQueryTimeout?: boolean; maxQueryExecutionTime?: number };
  return (sql, parameters, mode, executeOptions) => {
    const pool = (driver as unknown as { pool?: MysqlPool; poolCluster?: unknown }).pool;
    const serverText = executeOptions?.serverText === true;
    if (!pool || (driver as unknown as { poolCluster?: unknown }).poolCluster || (options.enableQueryTimeout && options.maxQueryExecutionTime)) {
      return fallback(sql, parameters, mode, executeOptions);
    }
    return new Promise((resolve, reject) => {
      pool.query(mysqlQuery(sql, { serverText }), parameters, (error, raw) => (error ? reject(new QueryFailedError(sql, parameters as unknown[], error)) : resolve(resultOf(raw))));
    });
  };
}


interface SqliteStatement {
  readonly reader: boolean;
  safeIntegers(toggle: boolean): SqliteStatement;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
}

/** Prepared statements kept per shard, as TypeORM's runner keeps them (FIFO, bounded). */
const SQLITE_STATEMENT_CACHE = 200;

function sqliteExecutor(driver: BetterSqlite3Driver): NonNullable<ShardTarget['executeNow']> {
  const statements = new Map<string, SqliteStatement>();
  return (sql, parameters, options) => {
    // better-sqlite3 cannot bind booleans (TypeORM's runner converts them the same way).
    const values = parameters.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p));
    try {
      return runSqlite(driver, statements, sql, values, options?.exactIntegers === true);
    } catch (error) {
      throw new QueryFailedError(sql, values, error as Error);
    }
  };
}

/** The integer mode each prepared statement was last given (setting it is a call into the addon). */
const integerModes = new WeakMap<SqliteStatement, boolean>();

function runSqlite(driver: BetterSqlite3Driver, statements: Map<string, SqliteStatement>, sql: string, values: readonly unknown[], exactIntegers: boolean): QueryResult {
  const db = driver.databaseConnection as { prepare(sql: string): SqliteStatement };
  let statement = statements.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    statements.set(sql, statement);
    if (statements.size > SQLITE_STATEMENT_CACHE) statements.delete(statements.keys().next().value as string);
  }
  const result = new QueryResult();
  if (statement.reader) {
    // Prepared statements are shared: the integer mode is set on every call.
    if (integerModes.get(statement) !== exactIntegers) {
      statement.safeIntegers(exactIntegers);
      integerModes.set(statement, exactIntegers);
    }
    const rows = statement.all(...values);
    result.raw = rows;
    result.records = rows;
  } else {
    const outcome = statement.run(...values);
    result.affected = outcome.changes;
    result.raw = outcome.lastInsertRowid;
  }
  return result;
}

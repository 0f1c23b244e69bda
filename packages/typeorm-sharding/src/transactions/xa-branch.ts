import { QueryFailedError, type QueryRunner } from 'typeorm';
import { mysqlQuery } from '../servers/mysql-query.js';
import { xidSql, type Xid } from './xid.js';

/** The callback API of the mysql2 connection a MySQL QueryRunner holds. */
interface CallbackConnection {
  query(sql: string | { sql: string; timeout?: number }, values: unknown, callback: (error: Error | null, raw: unknown) => void): void;
}

/**
 * One statement of the commit protocol on a branch's connection, as TypeORM's MySQL runner
 * runs it — logged by the data source's logger (an error too), with its query timeout, raised
 * as a `QueryFailedError` — but on mysql2's callback API: the runner's promise wrapper captures
 * a stack trace per statement and awaits two subscriber broadcasts, which a cross-server commit
 * paid five times over. Returns the driver's raw result. A runner that is not TypeORM's MySQL
 * runner (a test's fake) runs it itself.
 */
export async function protocolQuery(runner: QueryRunner, sql: string, parameters: readonly unknown[] = []): Promise<unknown> {
  const internals = runner as unknown as { databaseConnection?: unknown; isReleased?: boolean; driver?: { options?: { enableQueryTimeout?: boolean; maxQueryExecutionTime?: number } } };
  const connection = internals.databaseConnection as Partial<CallbackConnection> | undefined;
  if (internals.isReleased !== false || typeof connection?.query !== 'function' || runner.dataSource?.logger === undefined) return runner.query(sql, parameters as unknown[]);
  const logger = runner.dataSource.logger;
  logger.logQuery(sql, parameters as unknown[], runner);
  const options = internals.driver?.options;
  const timeout = options?.enableQueryTimeout && options.maxQueryExecutionTime ? options.maxQueryExecutionTime : undefined;
  return new Promise((resolve, reject) => {
    (connection as CallbackConnection).query(mysqlQuery(sql, { timeout }), parameters, (error, raw) => {
      if (!error) return resolve(raw);
      logger.logQueryError(error, sql, parameters as unknown[], runner);
      reject(new QueryFailedError(sql, parameters as unknown[], error));
    });
  });
}

/**
 * The XA statements of one branch, on the branch's own connection. A branch moves ACTIVE →
 * (XA END) IDLE → (XA PREPARE) PREPARED → (XA COMMIT / XA ROLLBACK) gone; an ACTIVE or IDLE
 * branch disappears with its connection, a PREPARED one survives it (MariaDB ≥ 10.5, MySQL ≥
 * 5.7.7) until someone commits or rolls it back.
 */
export const xa = {
  start: (xid: Xid) => `XA START ${xidSql(xid)}`,
  end: (runner: QueryRunner, xid: Xid) => protocolQuery(runner, `XA END ${xidSql(xid)}`),
  prepare: (runner: QueryRunner, xid: Xid) => protocolQuery(runner, `XA PREPARE ${xidSql(xid)}`),
  commit: (runner: QueryRunner, xid: Xid) => protocolQuery(runner, `XA COMMIT ${xidSql(xid)}`),
  /**
   * Rolls the branch back from whatever state it is in (an ACTIVE branch is ended first; one
   * that a deadlock made rollback-only refuses XA END, and is rolled back directly). True when
   * the branch is gone. False: its connection is in an unknown state and has been discarded
   * (closed, not given back to the pool): an unprepared branch dies with it, a prepared one is
   * left to the resolver.
   */
  async rollback(runner: QueryRunner, xid: Xid, prepared: boolean): Promise<boolean> {
    if (!prepared) await runner.query(`XA END ${xidSql(xid)}`).catch(() => undefined);
    try {
      await runner.query(`XA ROLLBACK ${xidSql(xid)}`);
      return true;
    } catch {
      discardConnection(runner);
      return false;
    }
  },
};

/** The same statements in autocommit on any connection of the server: for branches whose connection is gone. */
export const detachedXa = {
  commit: (xid: Xid) => `XA COMMIT ${xidSql(xid)}`,
  rollback: (xid: Xid) => `XA ROLLBACK ${xidSql(xid)}`,
};

/**
 * Closes a runner's connection instead of giving it back to its pool, for a connection whose
 * transaction state is unknown (an XA statement failed on it): the next user of a pooled
 * connection must find no branch on it. Releasing the runner afterwards gives nothing back.
 */
export function discardConnection(runner: QueryRunner): void {
  const connection = (runner as unknown as { databaseConnection?: { destroy?: () => void } }).databaseConnection;
  try {
    connection?.destroy?.();
  } catch {
    // Already closed.
  }
}

/** The driver's error number, when the database raised the error (not a lost connection). */
export function isServerError(error: unknown): boolean {
  const driverError = (error as { driverError?: { errno?: unknown; fatal?: unknown } } | undefined)?.driverError ?? (error as { errno?: unknown; fatal?: unknown } | undefined);
  return typeof driverError?.errno === 'number' && driverError.fatal !== true;
}

/** MySQL's "unknown XID": the branch is not (or no longer) prepared on this server, or belongs to a live session. */
export function isUnknownXid(error: unknown): boolean {
  return errnoOf(error) === 1397;
}

/** MySQL's ER_DUP_ENTRY: a decision-log record of this xid is there already. */
export function isDuplicateEntry(error: unknown): boolean {
  return errnoOf(error) === 1062;
}

function errnoOf(error: unknown): unknown {
  const driverError = (error as { driverError?: { errno?: unknown } } | undefined)?.driverError ?? (error as { errno?: unknown } | undefined);
  return driverError?.errno;
}

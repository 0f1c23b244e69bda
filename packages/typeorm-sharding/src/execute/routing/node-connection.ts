import type { Readable } from 'node:stream';
import type { ReplicationMode } from 'typeorm';
import { isConnectionError } from '../../router/connection-error.js';
import type { StatementDescriptor } from '../../router/statement.js';
import type { PooledConnection } from '../../servers/server-pool.js';
import { mysqlQuery } from '../../servers/mysql-query.js';

/** A pool connection as mysql2 hands it out: it can also be thrown away (after a connection error) and stream a result. */
export type NodeConnection = PooledConnection & { destroy?(): void; query(sql: string, values: unknown): { stream(): Readable } };

/**
 * TypeORM's replication contract: a QueryRunner of mode `master` (raw `query()`, the reads of
 * `save()`) reads the primary, one of mode `slave` (`find`, QueryBuilder) a replica.
 */
export function withMode(statement: StatementDescriptor, mode: ReplicationMode): StatementDescriptor {
  return mode === 'master' && statement.kind === 'select' ? { ...statement, masterRunner: true } : statement;
}

/**
 * One statement on a connection, callback API (the raw result: rows, or a ResultSetHeader with
 * the write's GTID). `serverText`: dates and times read as the server's text (see `PhysicalStatement.serverText`).
 */
export function run(connection: NodeConnection, sql: string, parameters: readonly unknown[], timeoutMs: number | undefined, serverText = false): Promise<unknown> {
  return new Promise((resolve, reject) => {
    connection.query(mysqlQuery(sql, { serverText, timeout: timeoutMs }), parameters, (error, raw) => (error ? reject(error) : resolve(raw)));
  });
}

/** Back to the pool; a connection that failed with a connection error is thrown away instead. */
export function giveBack(connection: NodeConnection, failure: unknown): void {
  if (failure !== undefined && isConnectionError(failure) && connection.destroy) connection.destroy();
  else connection.release();
}

/** Drains the rest of a stream the caller stopped reading, then gives its connection back. */
export function drainThenRelease(connection: NodeConnection, stream: Readable | undefined): void {
  if (stream === undefined) return giveBack(connection, undefined);
  stream.on('error', (error) => giveBack(connection, error));
  stream.on('end', () => giveBack(connection, undefined));
  stream.resume();
}

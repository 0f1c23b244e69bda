/**
 * Statements that read DATE, DATETIME and TIMESTAMP values as the text the server sent
 * (mysql2's per-query `dateStrings`; see `PhysicalStatement.serverText`), on a connection of a
 * TypeORM runner: TypeORM's own `query()` takes no per-query driver options.
 */
import { QueryFailedError, QueryResult, type QueryRunner } from 'typeorm';
import { mysqlQuery, type MysqlQueryOptions } from '../servers/mysql-query.js';

export { mysqlQuery, type MysqlQueryOptions };

interface Mysql2Connection {
  query(sql: string | MysqlQueryOptions, values: unknown, callback: (error: Error | null, raw: unknown) => void): void;
}

/**
 * Runs `sql` on the runner's connection (a pinned transaction connection stays pinned) with
 * dates read as text; fails as the runner's `query()` would, with a `QueryFailedError`.
 */
export async function queryWithServerText(runner: QueryRunner, sql: string, parameters: readonly unknown[], timeout?: number): Promise<QueryResult> {
  const connection = (await runner.connect()) as Mysql2Connection;
  const raw = await new Promise<unknown>((resolve, reject) => {
    connection.query(mysqlQuery(sql, { serverText: true, timeout }), parameters, (error, result) => (error ? reject(new QueryFailedError(sql, parameters as unknown[], error)) : resolve(result)));
  });
  return rawResult(raw);
}

/** A driver's raw result as TypeORM's runner wraps it. */
export function rawResult(raw: unknown): QueryResult {
  const result = new QueryResult();
  result.raw = raw;
  if (Array.isArray(raw)) result.records = raw;
  else if (raw && typeof raw === 'object' && 'affectedRows' in raw) result.affected = (raw as { affectedRows: number }).affectedRows;
  return result;
}

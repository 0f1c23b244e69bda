/**
 * The one thing the topology code needs of a MySQL/MariaDB connection: to run a statement. A
 * mysql2/promise `Connection` or `PoolConnection` (which answers `[rows, fields]`), a TypeORM
 * `QueryRunner` or a plain TypeORM `DataSource` (which answer the rows) all fit. Statements that
 * must share a session (the fence bypass variable, a transaction) need a single connection, not a
 * pool.
 */
export interface SqlConnection {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/** Runs `sql` and returns its rows, whichever of the shapes above the connection answers with. */
export async function queryRows(conn: SqlConnection, sql: string, parameters?: unknown[]): Promise<Record<string, unknown>[]> {
  const result = await conn.query(sql, parameters);
  // mysql2/promise: [rows, fields]; TypeORM: rows.
  const rows = Array.isArray(result) && Array.isArray(result[0]) ? (result[0] as unknown[]) : result;
  return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
}

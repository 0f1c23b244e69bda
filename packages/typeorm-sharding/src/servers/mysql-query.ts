/**
 * mysql2's per-query options: a query timeout (TypeORM's `maxQueryExecutionTime`) and
 * `dateStrings`, which reads DATE, DATETIME and TIMESTAMP values as the text the server sent
 * (see `PhysicalStatement.serverText`).
 */

/** mysql2's per-query options. */
export interface MysqlQueryOptions {
  readonly sql: string;
  readonly timeout?: number;
  readonly dateStrings?: boolean;
}

/** The query argument of mysql2 for `sql` (the plain string when no option is set). */
export function mysqlQuery(sql: string, how: { readonly serverText?: boolean | undefined; readonly timeout?: number | undefined }): string | MysqlQueryOptions {
  if (how.serverText !== true && how.timeout === undefined) return sql;
  return { sql, ...(how.timeout === undefined ? {} : { timeout: how.timeout }), ...(how.serverText === true ? { dateStrings: true } : {}) };
}

import { QueryFailedError, type QueryRunner } from 'typeorm';
import { ShardingError } from '../errors/index.js';
import type { SqlDialect } from '../parameterize/index.js';

/**
 * Runs one logical statement with TypeORM's logging around it, as the driver's own
 * QueryRunner does: `logQuery` before it runs, `logQuerySlow` when it took longer than
 * `maxQueryExecutionTime`, `logQueryError` with the database's error when it fails, all with
 * the statement and parameters the application sent and this runner. The logger applies the
 * `logging` option itself (`['query', 'error']`, custom loggers …), as it does for TypeORM.
 *
 * The plugin has to do this because its physical statements never pass through the runner
 * of a DataSource whose logger the application configured (see `execute/shard-target.ts`).
 */
export async function withQueryLogging<T>(
  runner: QueryRunner,
  dialect: SqlDialect,
  sql: string,
  parameters: readonly unknown[] | undefined,
  run: () => Promise<T>,
): Promise<T> {
  const { logger, options } = runner.dataSource;
  const logged = loggedParameters(dialect, parameters);
  logger.logQuery(sql, logged, runner);
  const max = options.maxQueryExecutionTime;
  const started = Date.now();
  try {
    const result = await run();
    const time = Date.now() - started;
    if (max && time > max) logger.logQuerySlow(time, sql, logged, runner);
    return result;
  } catch (error) {
    const time = Date.now() - started;
    // TypeORM's MySQL runner reports a slow failure as slow too; its SQLite runner does not.
    if (dialect === 'mysql' && max && time > max) logger.logQuerySlow(time, sql, logged, runner);
    logger.logQueryError(databaseErrorOf(error), sql, logged, runner);
    throw error;
  }
}

/**
 * The parameters as TypeORM's runner of the dialect logs them: MySQL's as given (even
 * `undefined`), better-sqlite3's as bound (`[]` when absent, booleans as 0/1).
 */
export function loggedParameters(dialect: SqlDialect, parameters: readonly unknown[] | undefined): unknown[] | undefined {
  if (dialect === 'mysql') return parameters as unknown[] | undefined;
  return (parameters ?? []).map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p));
}

/**
 * The error TypeORM's runner would log: the database driver's own, found under the
 * plugin's wrappers (`ShardQueryError` → cause, `QueryFailedError` → driverError). A refusal
 * by the plugin itself (no database involved) is logged as it is.
 */
export function databaseErrorOf(error: unknown): Error | string {
  let current = error;
  for (let depth = 0; depth < 4; depth++) {
    const inner =
      current instanceof QueryFailedError ? (current.driverError as unknown)
      : current instanceof ShardingError ? current.cause
      : undefined;
    if (inner === undefined || inner === null) break;
    current = inner;
  }
  return current instanceof Error || typeof current === 'string' ? current : String(current);
}

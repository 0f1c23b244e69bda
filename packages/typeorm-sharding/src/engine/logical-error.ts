import { ShardQueryError } from '../errors/index.js';
import type { Row } from '../merge/index.js';
import type { SqlDialect } from '../parameterize/index.js';

/**
 * Makes a shard's failure read as TypeORM's own runner would have reported the logical
 * statement: `query` and `parameters` are what TypeORM sent (the physical ones stay in
 * `physicalQuery` / `physicalParameters`). On SQLite TypeORM reports booleans as 0/1.
 */
export function asLogicalError(error: unknown, sql: string, parameters: readonly unknown[] | undefined, dialect: SqlDialect): unknown {
  if (!(error instanceof ShardQueryError)) return error;
  const reported = dialect === 'sqlite' ? (parameters ?? []).map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p)) : parameters;
  // Fresh from the executor and not yet seen by anyone: filled in place.
  Object.assign(error, { query: sql, parameters: reported });
  return error;
}

/** The same rows, with failures raised while iterating reported for the logical statement. */
export async function* withLogicalErrors(rows: AsyncIterable<Row>, sql: string, parameters: readonly unknown[] | undefined, dialect: SqlDialect): AsyncIterable<Row> {
  try {
    yield* rows;
  } catch (error) {
    throw asLogicalError(error, sql, parameters, dialect);
  }
}

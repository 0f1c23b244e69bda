import { QueryFailedError } from 'typeorm';
import { ShardQueryError } from '../errors/index.js';
import type { SqlDialect } from '../parameterize/index.js';
import type { GlobalIndex } from '../rules/index.js';

/** True for a duplicate-key failure of a lookup table's primary key. */
export function isDuplicateKey(error: unknown): boolean {
  const driverError = error instanceof QueryFailedError ? (error.driverError as { code?: unknown }) : (error as { code?: unknown } | undefined);
  const code = driverError?.code;
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/**
 * The error one database gives for a duplicate of the user's key, from the lookup table's
 * duplicate: MySQL's `Duplicate entry 'v' for key 'UQ_…'` (`ER_DUP_ENTRY`, errno 1062, SQLSTATE
 * 23000, as the driver gave them) or SQLite's `UNIQUE constraint failed: users.email`
 * (`SQLITE_CONSTRAINT_UNIQUE`, or `_PRIMARYKEY` for a primary key), followed by the global
 * index's lookup table. A `ShardQueryError` of the lookup's shard (`at`'s, when given).
 */
export function duplicateError(index: GlobalIndex, values: readonly unknown[], cause: unknown, dialect: SqlDialect, at?: ShardQueryError): ShardQueryError {
  const original = at ?? (cause instanceof ShardQueryError ? cause : undefined);
  const driver = ((cause instanceof QueryFailedError ? cause.driverError : cause) ?? {}) as Record<string, unknown>;
  const where = index.lookupTable ? ` (global unique index, lookup table ${index.lookupTable})` : '';
  let message: string;
  let code: unknown = driver.code;
  if (dialect === 'mysql') {
    // The lookup's own message names the value that collided (the first row's when it does not).
    const entry = /Duplicate entry '(.*)' for key/s.exec(String(driver.sqlMessage ?? driver.message ?? ''))?.[1] ?? values.map(String).join('-');
    message = `Duplicate entry '${entry}' for key '${index.indexName}'${where}`;
  } else {
    message = `UNIQUE constraint failed: ${index.columns.map((c) => `${index.table}.${c}`).join(', ')}${where}`;
    code = index.indexName === 'PRIMARY' ? 'SQLITE_CONSTRAINT_PRIMARYKEY' : 'SQLITE_CONSTRAINT_UNIQUE';
  }
  const driverError = Object.assign(new Error(message), {
    code,
    ...(driver.errno !== undefined ? { errno: driver.errno } : {}),
    ...(driver.sqlState !== undefined ? { sqlState: driver.sqlState } : {}),
    ...(dialect === 'mysql' ? { sqlMessage: message } : {}),
    cause,
  });
  return new ShardQueryError(driverError, {
    shard: original?.shard ?? '?',
    physicalQuery: original?.physicalQuery ?? '',
    physicalParameters: original?.physicalParameters ?? [],
  });
}

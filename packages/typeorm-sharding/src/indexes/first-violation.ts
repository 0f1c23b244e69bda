import { QueryFailedError } from 'typeorm';
import { ShardQueryError } from '../errors/index.js';
import type { ParameterizedSql } from '../parameterize/index.js';
import type { GlobalIndex } from '../rules/index.js';
import { sameColumnSet } from '../rules/column-set.js';
import { duplicateError } from './duplicate-error.js';
import { insertEntries } from './insert-entries.js';
import type { IndexHost } from './maintain-indexes.js';
import { quoted } from './statement-text.js';

/** A key the probe checks: the owner's own primary key (`index` undefined: the shard enforces it) or a global unique index. */
interface ProbedKey {
  readonly columns: readonly string[];
  readonly index?: GlobalIndex;
  /** Each row's values of the key. */
  readonly rows: readonly (readonly unknown[])[];
}

/**
 * The error one database gives for an INSERT whose lookup write hit a duplicate. A database
 * checks row by row, each row's primary key before its other unique keys (InnoDB's clustered
 * index first; SQLite's rowid or primary key first), so a statement that repeats both an id and
 * an email fails on the id there, while the lookup rows (written first) meet the email first.
 * This finds the first row and key that collide, with an earlier row of the statement or a
 * stored row, and gives the duplicate error of that key (the primary key's as the database
 * words it, `PRIMARY`). Undefined when the probe finds nothing (a write in between): the caller
 * keeps the lookup's error. Runs only on that failure path.
 */
export async function firstViolation(p: ParameterizedSql, unique: readonly GlobalIndex[], keyColumnIndex: number, failure: unknown, host: IndexHost): Promise<Error | undefined> {
  const at = failure instanceof ShardQueryError ? failure : undefined;
  const cause = at ? (at.driverError as { cause?: unknown }).cause : failure;
  if (unique.length === 0) return undefined;
  const owner = unique[0]!.owner;
  const primary = owner.primaryColumns.map((c) => c.databaseName);
  const keys: ProbedKey[] = [];
  const globalPrimary = unique.find((g) => sameColumnSet(g.columns, primary));
  try {
    if (!globalPrimary && primary.length > 0) {
      const rows = insertEntries(p, host.dialect, { ...unique[0]!, columns: primary }, keyColumnIndex).map((e) => e.values);
      keys.push({ columns: primary, rows });
    }
  } catch {
    // A primary key left to the database (generated): the shard reports it; probe the global keys only.
  }
  for (const index of [...(globalPrimary ? [globalPrimary] : []), ...unique.filter((g) => g !== globalPrimary)]) {
    keys.push({ columns: index.columns, index, rows: insertEntries(p, host.dialect, index, keyColumnIndex).map((e) => e.values) });
  }
  const q = (c: string) => quoted(c, host.dialect);
  const driver = ((cause instanceof QueryFailedError ? cause.driverError : cause) ?? {}) as { code?: unknown; errno?: unknown; sqlState?: unknown };
  const count = keys[0]!.rows.length;
  for (let row = 0; row < count; row++) {
    for (const key of keys) {
      const values = key.rows[row]!;
      if (values.some((v) => v === null || v === undefined)) continue;
      const same = (other: readonly unknown[]) => other.every((v, i) => String(v) === String(values[i]));
      const table = key.index ? key.index.lookupTable : unique[0]!.table;
      const repeated =
        key.rows.slice(0, row).some(same) ||
        ((await host.run(`SELECT 1 AS ${q('present')} FROM ${q(table)} WHERE ${key.columns.map((c) => `${q(c)} = ?`).join(' AND ')} LIMIT 1`, values)).records ?? []).length > 0;
      if (!repeated) continue;
      // The owner's primary key is reported as its database would: `PRIMARY`, no lookup table.
      const index = key.index ?? { ...unique[0]!, label: 'primary key', indexName: 'PRIMARY', columns: primary, lookupTable: '' };
      return duplicateError(index, values, { code: driver.code, errno: driver.errno, sqlState: driver.sqlState }, host.dialect, at);
    }
  }
  return undefined;
}

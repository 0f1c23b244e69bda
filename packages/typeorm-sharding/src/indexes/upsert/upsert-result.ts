import { QueryResult } from 'typeorm';
import type { SqlDialect } from '../../parameterize/index.js';

/** What happened to one row of an upsert. */
export interface RowOutcome {
  readonly kind: 'inserted' | 'updated' | 'ignored';
  /** An update that changed the row (MySQL counts 2 for it, 1 for a row found unchanged). */
  readonly changed: boolean;
  /** The row's RETURNING values, when the statement returns some (not for an ignored row). */
  readonly returned?: unknown;
  /** The driver's result of the row's INSERT (SQLite: its `raw` is the last rowid). */
  readonly insert?: QueryResult;
}

/**
 * The result one database gives for the whole statement, from its rows' outcomes. MySQL (mysql2
 * with FOUND_ROWS, as TypeORM connects): affectedRows counts 1 per inserted row, 2 per changed
 * row, 1 per row found unchanged; the info text is `Records: n  Duplicates: d  Warnings: w` for
 * a statement of several rows, empty for one; INSERT IGNORE warns once per skipped row;
 * serverStatus has SERVER_STATUS_IN_TRANS (1) inside the caller's transaction. With
 * RETURNING the result is the returned rows, in the order of the VALUES rows. SQLite: `affected`
 * counts inserted and updated rows; `raw` is the rowid of the last row inserted.
 */
export function upsertResult(outcomes: readonly RowOutcome[], dialect: SqlDialect, returning: boolean, inTransaction = false): QueryResult {
  const result = new QueryResult();
  const records = outcomes.filter((o) => o.kind !== 'ignored' && o.returned !== undefined).map((o) => o.returned);
  if (returning) {
    result.records = records;
    result.raw = records;
    return result;
  }
  if (dialect === 'mysql') {
    const affectedRows = outcomes.reduce((n, o) => n + (o.kind === 'inserted' ? 1 : o.kind === 'updated' ? (o.changed ? 2 : 1) : 0), 0);
    const duplicates = outcomes.filter((o) => o.kind !== 'inserted').length;
    const warnings = outcomes.filter((o) => o.kind === 'ignored').length;
    const info = outcomes.length > 1 ? `Records: ${outcomes.length}  Duplicates: ${duplicates}  Warnings: ${warnings}` : '';
    result.raw = { fieldCount: 0, affectedRows, insertId: 0, info, serverStatus: inTransaction ? 3 : 2, warningStatus: warnings, changedRows: 0 };
    result.affected = affectedRows;
    return result;
  }
  result.affected = outcomes.filter((o) => o.kind !== 'ignored').length;
  const inserted = outcomes.filter((o) => o.insert !== undefined);
  result.raw = inserted.length > 0 ? inserted[inserted.length - 1]!.insert!.raw : 0;
  return result;
}

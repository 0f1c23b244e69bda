import { REFS_COLUMN, type GlobalIndex } from '../../rules/index.js';
import type { SqlDialect } from '../../parameterize/index.js';
import { quoted } from '../statement-text.js';

/** Runs one statement inside the caller's transaction and returns its rows. */
export type TransactionQuery = (sql: string, parameters: readonly unknown[]) => Promise<Record<string, unknown>[]>;

/** What reconciling one entry did. */
export type RepairAction =
  /** Nothing to do (any more): a write in between made the entry right. */
  | 'none'
  /** The entry was missing and is written. */
  | 'inserted'
  /** The entry had no owner rows and is deleted. */
  | 'deleted'
  /** A unique entry pointed at an owner key without the value; it now points at the rows that hold it. */
  | 'repointed'
  /** A lookup index's counter is set to the rows it counts. */
  | 'recounted'
  /** The value is held by rows of two owner keys: nothing written (the user decides which keeps it). */
  | 'conflict';

/**
 * Makes the entry of `values` for the owner key `owner` agree with the owner rows, inside the
 * caller's transaction: the owner rows and the entry are read again with locking reads (a
 * finding read outside may be stale by now: a write committed between the two reads of a check),
 * then the entry is inserted, deleted, repointed or recounted. Never picks a winner: a unique
 * value held under another owner key that still has it is a `conflict`.
 */
export async function reconcileEntry(index: GlobalIndex, values: readonly unknown[], owner: unknown, query: TransactionQuery, dialect: SqlDialect): Promise<RepairAction> {
  const q = (c: string) => quoted(c, dialect);
  const lock = dialect === 'mysql' ? ' FOR UPDATE' : '';
  const table = q(index.lookupTable);
  const byValues = index.columns.map((c) => `${q(c)} = ?`).join(' AND ');
  const byValuesAndOwner = `${byValues} AND ${q(index.ownerColumn)} = ?`;
  const ownerRows = async (key: unknown) =>
    (await query(`SELECT ${q(index.ownerColumn)} FROM ${q(index.table)} WHERE ${byValuesAndOwner}${lock}`, [...values, key])).length;
  const rows = await ownerRows(owner);
  if (!index.unique) {
    const entry = (await query(`SELECT ${q(REFS_COLUMN)} FROM ${table} WHERE ${byValuesAndOwner}${lock}`, [...values, owner]))[0];
    if (entry === undefined) {
      if (rows === 0) return 'none';
      const columns = [...index.columns, index.ownerColumn, REFS_COLUMN];
      await query(`INSERT INTO ${table} (${columns.map(q).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`, [...values, owner, rows]);
      return 'inserted';
    }
    if (rows === 0) {
      await query(`DELETE FROM ${table} WHERE ${byValuesAndOwner}`, [...values, owner]);
      return 'deleted';
    }
    if (Number(entry[REFS_COLUMN]) === rows) return 'none';
    await query(`UPDATE ${table} SET ${q(REFS_COLUMN)} = ? WHERE ${byValuesAndOwner}`, [rows, ...values, owner]);
    return 'recounted';
  }
  const entry = (await query(`SELECT ${q(index.ownerColumn)} FROM ${table} WHERE ${byValues}${lock}`, [...values]))[0];
  const entryOwner = entry?.[index.ownerColumn];
  const same = entry !== undefined && String(entryOwner) === String(owner);
  if (rows === 0) {
    if (!same) return 'none';
    await query(`DELETE FROM ${table} WHERE ${byValuesAndOwner}`, [...values, owner]);
    return 'deleted';
  }
  if (rows > 1) return 'conflict';
  if (same) return 'none';
  if (entry === undefined) {
    const columns = [...index.columns, index.ownerColumn];
    await query(`INSERT INTO ${table} (${columns.map(q).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`, [...values, owner]);
    return 'inserted';
  }
  if ((await ownerRows(entryOwner)) > 0) return 'conflict';
  await query(`UPDATE ${table} SET ${q(index.ownerColumn)} = ? WHERE ${byValues}`, [owner, ...values]);
  return 'repointed';
}

import type { QueryResult } from 'typeorm';
import { UnsupportedShardingError } from '../../errors/index.js';
import type { GlobalIndex } from '../../rules/index.js';
import { isDuplicateKey } from '../duplicate-error.js';
import { quoted } from '../statement-text.js';
import type { IndexHost } from '../maintain-indexes.js';
import { rowValueOf, type ConflictKey, type UpsertPlan } from './upsert-plan.js';
import { upsertResult, type RowOutcome } from './upsert-result.js';
import type { TextPart } from './upsert-statement.js';

/** The existing row a new row conflicts with: its shard key and primary-key values. */
interface Existing {
  readonly owner: unknown;
  readonly primary: readonly unknown[];
}

/**
 * Runs a planned upsert row by row, as one statement (a transaction of its own or a savepoint:
 * local on one server, XA across servers). For each row, in the order of the VALUES rows:
 * the row's conflict keys are looked up (a global key through its lookup row, read with a lock on
 * MySQL, so that concurrent upserts of one value queue there; a shard-key-containing key on the
 * row's own shard, see `Locking`); with no conflict the row is inserted (its lookup rows with it), else the
 * existing row is updated with the update part — in place, or moved to the shard of a new shard
 * key — or, for IGNORE / DO NOTHING, the row is skipped. The writes go through the engine's
 * index maintenance, so every global index follows.
 */
export async function runUpsert(plan: UpsertPlan, host: IndexHost): Promise<QueryResult> {
  for (const key of plan.keys) {
    if (key.index && host.isWriteOnly(key.index)) {
      throw new UnsupportedShardingError(
        `${plan.statement.clause} into "${plan.statement.table}" conflicts on (${key.columns.join(', ')}), whose global index ${key.index.lookupTable} is still being built (write-only): a missing lookup row does not yet prove that no row holds the value. Finish buildIndexes() first.`,
        { stage: 'write' },
      );
    }
  }
  const inTransaction = host.inTransaction();
  const attempt = (locking: Locking) =>
    host.atomically(async () => {
      const outcomes: RowOutcome[] = [];
      for (const row of plan.statement.rows) outcomes.push(await upsertRow(plan, row, host, locking));
      return upsertResult(outcomes, host.dialect, plan.statement.returning !== undefined, inTransaction);
    });
  // Inside the caller's transaction nothing can be retried: every read locks (see `Locking`).
  if (host.dialect !== 'mysql' || inTransaction) return attempt('always');
  try {
    return await attempt('found');
  } catch (error) {
    // A row committed since a plain read (or a real duplicate, which fails the same way again).
    if (!isDuplicateKey(error)) throw error;
    return attempt('always');
  }
}

/**
 * How a row that may not exist is read on an owner shard (MySQL). `'found'`: a plain read first,
 * and a locking read only of a row it found — a locking read of an absent key takes a gap lock,
 * and concurrent upserts of different new rows into one gap then deadlock on their inserts, where
 * one database's upserts do not. A row another writer committed meanwhile makes the insert fail
 * with a duplicate key (holding a shared lock on that row, which a locking read could not upgrade
 * without deadlocking the other losers): the whole statement is rolled back and run again with
 * `'always'` (locking reads; the row exists now), as one database's upsert waits for the other
 * and updates. Inside the caller's transaction, which cannot be rolled back for a retry, `'always'`.
 */
type Locking = 'found' | 'always';

async function upsertRow(plan: UpsertPlan, row: readonly TextPart[], host: IndexHost, locking: Locking = 'found'): Promise<RowOutcome> {
  const { statement } = plan;
  const own = rowValueOf(plan, row, plan.keyColumn);
  // Global keys first: their lookup rows are where concurrent upserts of a value queue, before
  // any of them holds a lock on an owner shard (a gap lock there would deadlock the queue).
  const order = [...plan.keys.filter((k) => k.index), ...plan.keys.filter((k) => !k.index)];
  const found = new Map<ConflictKey, Existing>();
  for (const key of order) {
    const values = key.columns.map((c) => rowValueOf(plan, row, c));
    if (values.some((v) => v === null || v === undefined)) continue;
    // The primary key of a row a global key already found (and locked) is that row: no second read.
    if (!key.index && key.primary) {
      const same = [...found.values()].find((e) => plan.primary.every((c, i) => String(e.primary[i]) === String(rowValueOf(plan, row, c))));
      if (same) {
        found.set(key, same);
        continue;
      }
    }
    const owner = key.index ? await ownerByLookup(plan, key.index, values, own, host, locking) : await ownerOnShard(plan, key.columns, values, host, locking);
    if (owner) found.set(key, owner);
  }
  // The row one database updates: the first key's in the table's order (MySQL meets the primary key first).
  const hits = plan.keys.filter((k) => found.has(k));
  if (hits.length === 0) return insertRow(plan, row, host);
  if (statement.mode === 'ignore') return { kind: 'ignored', changed: false };
  const first = hits[0]!;
  const existing = found.get(first)!;
  const other = hits.find((k) => !samePrimary(existing, found.get(k)!));
  // MySQL meets the primary key first (InnoDB's clustered index); SQLite's order is not relied on.
  if (other && !(first.primary && host.dialect === 'mysql')) {
    throw new UnsupportedShardingError(
      `${statement.clause} into "${statement.table}": a row conflicts with one row on (${first.columns.join(', ')}) and with another on (${other.columns.join(', ')}); which of them one database updates depends on the order of its unique indexes. Upsert on one conflict target, or read the rows first.`,
      { stage: 'write' },
    );
  }
  return updateRow(plan, row, existing, host);
}

/**
 * The owner row of a global key's values, found through its lookup row. On MySQL the lookup row
 * is claimed first (written if absent, locked either way), so that concurrent upserts of the value
 * queue on it; a claim nobody owns yet is taken back before the row is written.
 */
async function ownerByLookup(plan: UpsertPlan, index: GlobalIndex, values: readonly unknown[], own: unknown, host: IndexHost, locking: Locking): Promise<Existing | undefined> {
  const q = (c: string) => quoted(c, host.dialect);
  const lookup = q(index.lookupTable);
  const where = index.columns.map((c) => `${q(c)} = ?`).join(' AND ');
  const mysql = host.dialect === 'mysql';
  if (mysql) {
    const columns = [...index.columns, index.ownerColumn];
    await host.run(
      `INSERT INTO ${lookup} (${columns.map(q).join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ON DUPLICATE KEY UPDATE ${q(index.ownerColumn)} = ${q(index.ownerColumn)}`,
      [...values, own],
    );
  }
  const entries = ((await host.run(`SELECT ${q(index.ownerColumn)} FROM ${lookup} WHERE ${where}${mysql ? ' FOR UPDATE' : ''}`, values)).records ?? []) as Record<string, unknown>[];
  if (entries.length === 0) return undefined;
  const owner = entries[0]![index.ownerColumn];
  // The lookup row is ours now: the owner's row cannot change under it. A row of the new row's
  // own key (the claim just written) is read without a gap lock; another owner's row must exist.
  const ownKey = String(owner) === String(own);
  const found = await ownerOnShard(plan, [index.ownerColumn, ...index.columns], [owner, ...values], host, ownKey ? locking : 'always');
  if (found) return found;
  if (mysql && ownKey) {
    await host.run(`DELETE FROM ${lookup} WHERE ${where} AND ${q(index.ownerColumn)} = ?`, [...values, own]);
    return undefined;
  }
  throw new UnsupportedShardingError(
    `The lookup row of (${index.columns.join(', ')}) = (${values.map(String).join(', ')}) in ${index.lookupTable} names owner ${String(owner)}, which holds no such row: the index is out of step. Run ds.checkIndexes({ repair: true }).`,
    { stage: 'write' },
  );
}

/** The row holding `values` in `columns` (which contain the shard key), locked on MySQL (see `Locking`). */
async function ownerOnShard(plan: UpsertPlan, columns: readonly string[], values: readonly unknown[], host: IndexHost, locking: Locking): Promise<Existing | undefined> {
  const q = (c: string) => quoted(c, host.dialect);
  const read = [...new Set([plan.keyColumn, ...plan.primary])];
  const sql = `SELECT ${read.map(q).join(', ')} FROM ${q(plan.statement.table)} WHERE ${columns.map((c) => `${q(c)} = ?`).join(' AND ')}`;
  const mysql = host.dialect === 'mysql';
  if (mysql && locking === 'found' && ((await host.run(sql, values)).records ?? []).length === 0) return undefined;
  const rows = ((await host.run(mysql ? `${sql} FOR UPDATE` : sql, values)).records ?? []) as Record<string, unknown>[];
  if (rows.length === 0) return undefined;
  return { owner: rows[0]![plan.keyColumn], primary: plan.primary.map((c) => rows[0]![c]) };
}

function samePrimary(a: Existing, b: Existing): boolean {
  return a.primary.every((v, i) => String(v) === String(b.primary[i]));
}

async function insertRow(plan: UpsertPlan, row: readonly TextPart[], host: IndexHost): Promise<RowOutcome> {
  const { head, returning } = plan.statement;
  const sql = `${head.text} VALUES (${row.map((i) => i.text).join(', ')})${returning ? ` RETURNING ${returning.text}` : ''}`;
  const result = await host.runIndexed(sql, [...head.parameters, ...row.flatMap((i) => i.parameters), ...(returning?.parameters ?? [])]);
  return { kind: 'inserted', changed: true, insert: result, ...(returning ? { returned: (result.records ?? [])[0] } : {}) };
}

/** The WHERE naming one row by its shard key and primary key. */
function rowWhere(plan: UpsertPlan, owner: unknown, primary: readonly unknown[], dialect: 'mysql' | 'sqlite'): { sql: string; parameters: unknown[] } {
  const q = (c: string) => quoted(c, dialect);
  const columns = [plan.keyColumn, ...plan.primary.filter((c) => c.toLowerCase() !== plan.keyColumn.toLowerCase())];
  const values = [owner, ...primary.filter((_, i) => plan.primary[i]!.toLowerCase() !== plan.keyColumn.toLowerCase())];
  return { sql: columns.map((c) => `${q(c)} = ?`).join(' AND '), parameters: values };
}

async function updateRow(plan: UpsertPlan, row: readonly TextPart[], existing: Existing, host: IndexHost): Promise<RowOutcome> {
  const { statement } = plan;
  const q = (c: string) => quoted(c, host.dialect);
  const columnAt = (c: string) => statement.columns.findIndex((x) => x.toLowerCase() === c.toLowerCase());
  // The update part's assignments, each with the text of its new value.
  const set: { column: string; part: TextPart }[] = [];
  for (const a of statement.assignments) {
    if (a.value.kind === 'keep') continue;
    set.push({ column: a.column, part: a.value.kind === 'row' ? row[columnAt(a.value.column)]! : a.value.part });
  }
  const is = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  const key = set.find((s) => is(s.column, plan.keyColumn));
  const moved = key !== undefined && String(key.part.value!.v) !== String(existing.owner);
  const kept = set.filter((s) => !(is(s.column, plan.keyColumn) && !moved));
  const newOwner = moved ? key.part.value!.v : existing.owner;
  const newPrimary = plan.primary.map((c, i) => {
    const s = set.find((x) => is(x.column, c));
    return s ? s.part.value!.v : existing.primary[i];
  });
  const where = rowWhere(plan, existing.owner, existing.primary, host.dialect);
  let changed = false;
  if (moved) {
    await moveRow(plan, kept, where, host);
    changed = true;
  } else if (kept.length > 0) {
    const result = await host.runIndexed(
      `UPDATE ${q(statement.table)} SET ${kept.map((s) => `${q(s.column)} = ${s.part.text}`).join(', ')} WHERE ${where.sql}`,
      [...kept.flatMap((s) => s.part.parameters), ...where.parameters],
    );
    changed = host.dialect === 'mysql' ? Number((result.raw as { changedRows?: unknown } | undefined)?.changedRows ?? 0) > 0 : true;
  }
  if (!statement.returning) return { kind: 'updated', changed };
  const after = rowWhere(plan, newOwner, newPrimary, host.dialect);
  const records = (await host.run(`SELECT ${statement.returning.text} FROM ${q(statement.table)} WHERE ${after.sql}`, [...statement.returning.parameters, ...after.parameters])).records ?? [];
  return { kind: 'updated', changed, returned: records[0] };
}

/**
 * An update that gives the row a new shard key: on one database the row is updated in place; here
 * it is read whole, deleted from its shard and inserted on the new key's shard with the update
 * part applied (every index following both writes). Refused where delete + insert is not the same
 * as an update in place: rows other tables reference, generated columns, values over the old row.
 */
async function moveRow(plan: UpsertPlan, set: readonly { column: string; part: TextPart }[], where: { sql: string; parameters: unknown[] }, host: IndexHost): Promise<void> {
  const { statement } = plan;
  const table = statement.table;
  const owner = plan.owner;
  const refuse = (why: string): never => {
    throw new UnsupportedShardingError(
      `${statement.clause} into "${table}" gives the existing row a new shard key "${plan.keyColumn}", which moves it to another shard (a delete and an insert), and ${why}. Leave the shard key out of the update part (upsert with the existing row's key), or delete and insert the row yourself.`,
      { stage: 'write' },
    );
  };
  {
    const referencing = owner.connection.entityMetadatas.find((m) => m.foreignKeys.some((fk) => fk.referencedEntityMetadata === owner));
    if (referencing) refuse(`"${referencing.tableName}" references its rows (a delete would cascade or fail where an update in place would not)`);
    const generated = owner.columns.find((c) => c.generatedType !== undefined || c.isVersion || (host.dialect === 'mysql' && c.isUpdateDate && !set.some((s) => s.column.toLowerCase() === c.databaseName.toLowerCase())));
    if (generated) refuse(`its column "${generated.databaseName}" is computed by the database (generated, version or ON UPDATE), which a copy would not repeat`);
  }
  for (const s of set) {
    if (s.part.value) continue;
    if (host.dialect === 'mysql' && /^DEFAULT(\(\))?$/i.test(s.part.text.trim())) continue;
    refuse(`its update part sets "${s.column}" to ${s.part.text}, which cannot be evaluated on the new shard`);
  }
  const q = (c: string) => quoted(c, host.dialect);
  const rows = ((await host.readExact(`SELECT * FROM ${q(table)} WHERE ${where.sql}${host.dialect === 'mysql' ? ' FOR UPDATE' : ''}`, where.parameters)).records ?? []) as Record<string, unknown>[];
  const old = rows[0]!;
  const columns = Object.keys(old);
  const items = columns.map((c) => {
    const s = set.find((x) => x.column.toLowerCase() === c.toLowerCase());
    return s ? s.part : { text: '?', parameters: [old[c]] };
  });
  await host.runIndexed(`DELETE FROM ${q(table)} WHERE ${where.sql}`, where.parameters);
  await host.runIndexed(`INSERT INTO ${q(table)} (${columns.map(q).join(', ')}) VALUES (${items.map((i) => i.text).join(', ')})`, items.flatMap((i) => i.parameters));
}

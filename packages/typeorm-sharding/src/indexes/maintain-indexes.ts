import type { QueryResult } from 'typeorm';
import { UnsupportedShardingError } from '../errors/index.js';
import { firstViolation } from './first-violation.js';
import type { ParameterizedSql, SqlDialect } from '../parameterize/index.js';
import type { Plan } from '../plan/plan.js';
import { REFS_COLUMN, type GlobalIndex, type TableRule } from '../rules/index.js';
import { planUpsert } from './upsert/upsert-plan.js';
import { runUpsert } from './upsert/run-upsert.js';
import { upsertStatementOf } from './upsert/upsert-statement.js';
import { conflictClausesOf } from '../plan/write/conflict-clause.js';
import { duplicateError, isDuplicateKey } from './duplicate-error.js';
import { insertEntries } from './insert-entries.js';
import { parametersBetween, quoted, writeClausesOf } from './statement-text.js';

/** What maintaining a table's global indexes needs from the engine. */
export interface IndexHost {
  readonly dialect: SqlDialect;
  /** Runs one logical statement as planned, without maintenance (the user's, or a lookup table's). */
  run(sql: string, parameters: readonly unknown[]): Promise<QueryResult>;
  /** Runs `work` as one statement: in a transaction of its own, or behind a savepoint inside the caller's. */
  atomically<T>(work: () => Promise<T>): Promise<T>;
  /** Runs one logical statement with its global indexes maintained (as a user's statement runs). */
  runIndexed(sql: string, parameters: readonly unknown[]): Promise<QueryResult>;
  /** Runs a read without maintenance, its values as stored (to be written back: a row moved by an upsert). */
  readExact(sql: string, parameters: readonly unknown[]): Promise<QueryResult>;
  /** True inside the caller's transaction (MySQL reports it in a result's serverStatus). */
  inTransaction(): boolean;
  /** True while a global index is being built: its lookup table may still miss entries. */
  isWriteOnly(index: GlobalIndex): boolean;
}

/** One lookup row: the values of the key and the owner's shard key. */
interface Entry {
  readonly values: readonly unknown[];
  readonly owner: unknown;
}

/**
 * Runs a write of a table with global indexes together with the writes of its lookup rows, as
 * one statement of the session (a transaction of its own, or a savepoint inside the caller's:
 * local per server, XA across servers, one ATTACHed commit on SQLite), so that a committed row
 * always has its entries and a duplicate leaves nothing of the statement written.
 *
 * - INSERT: the entries first (a duplicate fails there, before the row), then the rows.
 * - An upsert (ON DUPLICATE KEY UPDATE, ON CONFLICT, INSERT IGNORE): row by row, its conflict
 *   found through the lookup rows, then an insert or an update of the owner (`upsert/`).
 * - UPDATE that assigns a key column: the affected rows' keys are read with a locking read on
 *   the owner's shards, the old entries deleted, the new ones inserted, the rows updated.
 * - DELETE: the affected rows' keys are read likewise, the rows deleted, then their entries.
 *
 * NULL in any column of a key is not indexed (a unique index lets several NULLs in). A lookup
 * index (not unique) counts its entries' rows instead of refusing a second one (`countLookup`).
 */
export async function maintainIndexes(p: ParameterizedSql, plan: Plan, indexes: readonly GlobalIndex[], host: IndexHost, rule: TableRule): Promise<QueryResult> {
  const table = indexes[0]!.table;
  switch (plan.kind) {
    case 'insert': {
      if (p.verb === 'REPLACE' || conflictClausesOf(p.sql, host.dialect).length > 0) {
        // The row it may conflict with can live on another shard: routed row by row through the lookup tables.
        const statement = upsertStatementOf(p, host.dialect);
        if (!statement) throw refused(`This upsert of "${table}"`, p, 'write it as INSERT … VALUES with one conflict clause');
        return runUpsert(planUpsert(statement, p, rule, indexes), host);
      }
      const entries = indexes.map((index) => ({ index, entries: insertEntries(p, host.dialect, index, plan.keyColumnIndex!) }));
      let atLookup = false;
      try {
        return await host.atomically(async () => {
          atLookup = true;
          for (const { index, entries: list } of entries) await insertLookup(index, list, host);
          atLookup = false;
          return host.run(p.sql, p.parameters);
        });
      } catch (error) {
        if (!atLookup || !isDuplicateKey(error)) throw error;
        throw (await firstViolation(p, indexes.filter((g) => g.unique), plan.keyColumnIndex!, error, host)) ?? error;
      }
    }
    case 'write':
      if (plan.limited) throw refused(`${p.verb} with ORDER BY / LIMIT of "${table}"`, p, 'the rows a LIMIT picks on each shard are not known before it runs; name the rows by their keys');
      return p.verb === 'DELETE' ? deleteWithIndexes(p, indexes, host) : updateWithIndexes(p, indexes, host);
    default:
      throw refused(`this ${p.verb} of "${table}"`, p, 'write the rows by their keys with plain values (no subquery over sharded tables)');
  }
}

async function deleteWithIndexes(p: ParameterizedSql, indexes: readonly GlobalIndex[], host: IndexHost): Promise<QueryResult> {
  const clauses = writeClausesOf(p, host.dialect);
  return host.atomically(async () => {
    const rows = await lockingRead(p.sql.slice(clauses.head, clauses.end), parametersBetween(p, clauses.head, clauses.end), indexes, host);
    const result = await host.run(p.sql, p.parameters);
    for (const index of indexes) await deleteLookup(index, rows.map((r) => entryOf(r, index)).filter(isIndexed), host);
    return result;
  });
}

async function updateWithIndexes(p: ParameterizedSql, indexes: readonly GlobalIndex[], host: IndexHost): Promise<QueryResult> {
  const clauses = writeClausesOf(p, host.dialect);
  const assigned = new Map<string, unknown>();
  for (const a of clauses.assignments) {
    const slot = p.slots.find((s) => s.start === a.start && s.end === a.end);
    const column = a.column.toLowerCase();
    if (!indexes.some((g) => g.columns.some((c) => c.toLowerCase() === column))) continue;
    if (!slot) {
      throw refused(`UPDATE of "${indexes[0]!.table}" that sets "${a.column}" to an expression`, p, `it is a column of a global index, whose new value must be known before the UPDATE runs: set it to a value (read the rows, compute it, and save them)`);
    }
    assigned.set(column, slot.value);
  }
  const touched = indexes.filter((g) => g.columns.some((c) => assigned.has(c.toLowerCase())));
  if (touched.length === 0) return host.run(p.sql, p.parameters);
  return host.atomically(async () => {
    // `UPDATE users u SET … WHERE …` reads `FROM users u WHERE …` (the table part has no parameters).
    const from = `FROM ${p.sql.slice('UPDATE'.length, clauses.head).trim()} ${p.sql.slice(clauses.where, clauses.end)}`;
    const rows = await lockingRead(from, parametersBetween(p, clauses.where, clauses.end), touched, host);
    const changes = touched.map((index) => {
      const old = rows.map((r) => entryOf(r, index));
      const fresh = old.map((e) => ({ owner: e.owner, values: index.columns.map((c, i) => (assigned.has(c.toLowerCase()) ? assigned.get(c.toLowerCase()) : e.values[i])) }));
      const moved = old.map((e, i) => !sameValues(e.values, fresh[i]!.values));
      return { index, old: old.filter((e, i) => moved[i] && isIndexed(e)), fresh: fresh.filter((e, i) => moved[i] && isIndexed(e)) };
    });
    // Old entries first: a value changed to one its collation finds equal ('A@x' → 'a@x') meets
    // no entry of its own then. All of it is one atomic statement, so the order risks nothing.
    for (const c of changes) await deleteLookup(c.index, c.old, host);
    for (const c of changes) await insertLookup(c.index, c.fresh, host);
    return host.run(p.sql, p.parameters);
  });
}

/**
 * Reads the owner key and the key columns of the rows a write affects (`fromWhere`: its `FROM …
 * WHERE …` part), locking them on MySQL (`FOR UPDATE`, so that the write that follows changes
 * exactly these rows; SQLite's transaction holds its file).
 */
async function lockingRead(fromWhere: string, parameters: readonly unknown[], indexes: readonly GlobalIndex[], host: IndexHost): Promise<Record<string, unknown>[]> {
  const q = (c: string) => quoted(c, host.dialect);
  const columns = [...new Set([indexes[0]!.ownerColumn, ...indexes.flatMap((g) => g.columns)])];
  const select = `SELECT ${columns.map(q).join(', ')} ${fromWhere.trim()}${host.dialect === 'mysql' ? ' FOR UPDATE' : ''}`;
  return ((await host.run(select, parameters)).records ?? []) as Record<string, unknown>[];
}

function entryOf(row: Record<string, unknown>, index: GlobalIndex): Entry {
  return { owner: row[index.ownerColumn], values: index.columns.map((c) => row[c]) };
}

function isIndexed(entry: Entry): boolean {
  return entry.values.every((v) => v !== null && v !== undefined);
}

function sameValues(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.every((v, i) => String(v) === String(b[i]));
}

async function insertLookup(index: GlobalIndex, entries: readonly Entry[], host: IndexHost): Promise<void> {
  const indexed = entries.filter(isIndexed);
  if (indexed.length === 0) return;
  if (!index.unique) return countLookup(index, indexed, 1, host);
  const q = (c: string) => quoted(c, host.dialect);
  const columns = [...index.columns, index.ownerColumn];
  const row = `(${columns.map(() => '?').join(', ')})`;
  const sql = `INSERT INTO ${q(index.lookupTable)} (${columns.map(q).join(', ')}) VALUES ${indexed.map(() => row).join(', ')}`;
  try {
    await host.run(sql, indexed.flatMap((e) => [...e.values, e.owner]));
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    throw duplicateError(index, indexed[0]!.values, error, host.dialect);
  }
}

async function deleteLookup(index: GlobalIndex, entries: readonly Entry[], host: IndexHost): Promise<void> {
  if (!index.unique) return countLookup(index, entries.filter(isIndexed), -1, host);
  const q = (c: string) => quoted(c, host.dialect);
  const condition = [...index.columns, index.ownerColumn].map((c) => `${q(c)} = ?`).join(' AND ');
  for (const e of entries) await host.run(`DELETE FROM ${q(index.lookupTable)} WHERE ${condition}`, [...e.values, e.owner]);
}

/**
 * A lookup index's entries counted up (`sign` 1: rows written) or down (−1: rows gone): one
 * upsert that adds to `gidx_refs`, or a decrement and the delete of the entries that reached 0.
 */
async function countLookup(index: GlobalIndex, entries: readonly Entry[], sign: 1 | -1, host: IndexHost): Promise<void> {
  if (entries.length === 0) return;
  const groups = new Map<string, { entry: Entry; n: number }>();
  for (const e of entries) {
    const id = JSON.stringify([...e.values, e.owner].map(String));
    const group = groups.get(id);
    if (group) group.n++;
    else groups.set(id, { entry: e, n: 1 });
  }
  const q = (c: string) => quoted(c, host.dialect);
  const table = q(index.lookupTable);
  const refs = q(REFS_COLUMN);
  const keys = [...index.columns, index.ownerColumn];
  if (sign > 0) {
    const row = `(${[...keys, REFS_COLUMN].map(() => '?').join(', ')})`;
    const onConflict =
      host.dialect === 'mysql' ? `ON DUPLICATE KEY UPDATE ${refs} = ${refs} + VALUES(${refs})` : `ON CONFLICT (${keys.map(q).join(', ')}) DO UPDATE SET ${refs} = ${refs} + excluded.${refs}`;
    const sql = `INSERT INTO ${table} (${[...keys, REFS_COLUMN].map(q).join(', ')}) VALUES ${[...groups.values()].map(() => row).join(', ')} ${onConflict}`;
    await host.run(sql, [...groups.values()].flatMap(({ entry, n }) => [...entry.values, entry.owner, n]));
    return;
  }
  const condition = keys.map((c) => `${q(c)} = ?`).join(' AND ');
  for (const { entry, n } of groups.values()) {
    const key = [...entry.values, entry.owner];
    await host.run(`UPDATE ${table} SET ${refs} = ${refs} - ? WHERE ${condition}`, [n, ...key]);
    await host.run(`DELETE FROM ${table} WHERE ${condition} AND ${refs} <= 0`, key);
  }
}

function refused(what: string, p: ParameterizedSql, fix: string): UnsupportedShardingError {
  return new UnsupportedShardingError(`${what} is not supported on a table with a global index: ${fix}.`, { sql: p.sql, stage: 'write' });
}

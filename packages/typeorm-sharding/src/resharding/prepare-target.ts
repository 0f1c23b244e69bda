import type { Connection } from 'mysql2/promise';
import { quoteId, rows } from './endpoint.js';
import type { TableShape } from './governed-tables.js';

/**
 * Creates on the target every governed table the source has (the source's own `SHOW CREATE
 * TABLE`, so the target's columns, collations and keys are the source's), and, when the target
 * is a new shard, copies the broadcast tables in full. Idempotent: existing tables are kept,
 * a broadcast copy upserts.
 */
export async function prepareTarget(source: Connection, sourceDb: string, target: Connection, targetDb: string, shapes: readonly TableShape[], newShard: boolean): Promise<void> {
  await target.query(`CREATE DATABASE IF NOT EXISTS ${quoteId(targetDb)}`);
  for (const shape of shapes) {
    const [create] = await rows<Record<string, string>>(source, `SHOW CREATE TABLE ${quoteId(sourceDb)}.${quoteId(shape.table)}`);
    const ddl = String(create!['Create Table']).replace(/^CREATE TABLE /, 'CREATE TABLE IF NOT EXISTS ');
    await target.query(`USE ${quoteId(targetDb)}`);
    await target.query(ddl);
  }
  if (!newShard) return;
  for (const shape of shapes.filter((s) => s.kind === 'broadcast')) {
    const all = await rows(source, `SELECT * FROM ${quoteId(sourceDb)}.${quoteId(shape.table)}`);
    await upsertRows(target, targetDb, shape, all);
  }
}

/** `INSERT … ON DUPLICATE KEY UPDATE` of full rows: applying a row twice leaves one copy. */
export async function upsertRows(conn: Connection, database: string, shape: TableShape, list: readonly Record<string, unknown>[]): Promise<void> {
  if (list.length === 0) return;
  const cols = shape.columns;
  const updates = cols.filter((c) => !shape.primaryKey.includes(c));
  const set = (updates.length > 0 ? updates : [shape.primaryKey[0]!]).map((c) => `${quoteId(c)} = VALUES(${quoteId(c)})`).join(', ');
  const sql = `INSERT INTO ${quoteId(database)}.${quoteId(shape.table)} (${cols.map(quoteId).join(', ')}) VALUES ? ON DUPLICATE KEY UPDATE ${set}`;
  await conn.query(sql, [list.map((row) => cols.map((c) => row[c] ?? null))]);
}

/** Deletes rows by primary key. */
export async function deleteByKeys(conn: Connection, database: string, shape: TableShape, keys: readonly (readonly unknown[])[]): Promise<void> {
  if (keys.length === 0) return;
  const tuple = `(${shape.primaryKey.map(quoteId).join(', ')})`;
  await conn.query(`DELETE FROM ${quoteId(database)}.${quoteId(shape.table)} WHERE ${tuple} IN (?)`, [keys.map((k) => [...k])]);
}

import type { SqliteDb } from './sqlite-handle.js';

/** EXPLAIN's database number of the TEMP schema (a statement may touch it, e.g. for temp triggers). */
const TEMP = 1;

/**
 * Whether `sql`, run on `db`, touches no database but the one numbered `seq`: SQLite's own plan
 * says so (every database a statement reads or writes opens with a `Transaction` opcode whose
 * first operand is its number), so a table the qualification missed cannot slip through to
 * another shard's file. Throws the database's own error for a statement it rejects.
 */
export function touchesOnly(db: SqliteDb, sql: string, parameters: readonly unknown[], seq: number): boolean {
  const values = parameters.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p));
  const plan = db.prepare(`EXPLAIN ${sql}`).all(...values) as { opcode: string; p1: number }[];
  return plan.every((op) => op.opcode !== 'Transaction' || op.p1 === seq || op.p1 === TEMP);
}

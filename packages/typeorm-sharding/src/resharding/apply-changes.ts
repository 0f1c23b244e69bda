import type { Connection } from 'mysql2/promise';
import type { BinlogTransaction } from './binlog-stream.js';
import { rowIsMoving } from './bucket-filter.js';
import { pkOf, type TableShape } from './governed-tables.js';
import type { BucketSpan } from './move-plan.js';
import { deleteByKeys, upsertRows } from './prepare-target.js';

/** Where and what to apply. */
export interface ApplyTarget {
  readonly conn: Connection;
  readonly database: string;
  readonly shapes: ReadonlyMap<string, TableShape>;
  readonly bucketCount: number;
  readonly spans: readonly BucketSpan[];
}

/** Makes `conn`'s writes pass the fence's triggers (the reverse stream, cleanups), or not. */
export async function setFenceBypass(conn: Connection, on: boolean): Promise<void> {
  await conn.query(`SET @tsh_fence_bypass = ${on ? 1 : 0}`);
}

/**
 * Applies one source transaction to the target, in one target transaction, idempotently:
 * an insert or update upserts the full after-image, a delete deletes by key, so replaying a
 * transaction (after a kill between this commit and the persisted position) changes nothing.
 * Only rows whose bucket is moving count: an update that takes a row out of the moving
 * buckets deletes it, one that brings a row in upserts it. Returns the number of rows applied.
 */
export async function applyTransaction(target: ApplyTarget, tx: BinlogTransaction): Promise<number> {
  const moving = (shape: TableShape, row: Record<string, unknown>): boolean => rowIsMoving(shape, target.bucketCount, target.spans, row);
  const ops: { shape: TableShape; upsert?: Record<string, unknown>; remove?: unknown[] }[] = [];
  for (const change of tx.changes) {
    const shape = target.shapes.get(change.table);
    if (!shape) continue;
    if (change.kind === 'insert') {
      if (moving(shape, change.after)) ops.push({ shape, upsert: change.after });
    } else if (change.kind === 'delete') {
      if (moving(shape, change.before)) ops.push({ shape, remove: pkOf(shape, change.before) });
    } else {
      const wasIn = moving(shape, change.before);
      const isIn = moving(shape, change.after);
      const before = pkOf(shape, change.before);
      const keyChanged = JSON.stringify(before) !== JSON.stringify(pkOf(shape, change.after));
      if (wasIn && (!isIn || keyChanged)) ops.push({ shape, remove: before });
      if (isIn) ops.push({ shape, upsert: change.after });
    }
  }
  if (ops.length === 0) return 0;
  await target.conn.query('START TRANSACTION');
  try {
    for (const op of ops) {
      if (op.upsert) await upsertRows(target.conn, target.database, op.shape, [op.upsert]);
      else await deleteByKeys(target.conn, target.database, op.shape, [op.remove!]);
    }
    await target.conn.query('COMMIT');
  } catch (error) {
    await target.conn.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
  return ops.length;
}

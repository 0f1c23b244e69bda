import type { Connection } from 'mysql2/promise';
import type { BinlogPosition } from './binlog-position.js';
import { bucketCondition } from './bucket-filter.js';
import { quoteId, rows } from './endpoint.js';
import { pkOf, pkTuple, type TableShape } from './governed-tables.js';
import type { BucketSpan } from './move-plan.js';
import type { MoveStore } from './move-store.js';
import { upsertRows } from './prepare-target.js';
import { openSnapshot } from './snapshot.js';

/** Options of the copy phase. */
export interface CopyOptions {
  /** Rows per chunk (one SELECT on the source, one upsert on the target, one progress write). @default 1000 */
  readonly chunkRows?: number;
  /** Upper bound of the copy rate; 0 = unthrottled. @default 0 */
  readonly rowsPerSecond?: number;
  /** Called after each chunk (progress bars, metrics, fault injection in tests). */
  readonly onChunk?: (e: { readonly table: string; readonly rows: number; readonly total: number }) => void | Promise<void>;
  /** Called with the snapshot's binlog position before the first row is read. */
  readonly onSnapshot?: (at: BinlogPosition) => void | Promise<void>;
}

/** What the copy needs to know about the move. */
export interface CopyJob {
  readonly moveId: number;
  readonly source: Connection;
  readonly sourceDb: string;
  readonly target: Connection;
  readonly targetDb: string;
  readonly shapes: readonly TableShape[];
  readonly bucketCount: number;
  readonly spans: readonly BucketSpan[];
  readonly store: MoveStore;
}

/**
 * Copies the moving rows of every sharded table from one consistent snapshot of the source,
 * chunked by primary key, and returns the binlog position of that snapshot.
 *
 * Resuming after a kill takes a new snapshot and continues after the last key persisted for
 * each table. The catch-up then starts at the first snapshot's position (kept by the caller):
 * its upserts of full after-images and deletes by key, applied in binlog order, bring every
 * row touched since then to its latest state whichever snapshot copied it, so nothing is lost
 * or doubled.
 */
export async function copyRows(job: CopyJob, options: CopyOptions = {}): Promise<BinlogPosition> {
  const chunk = options.chunkRows ?? 1000;
  const snapshotAt = await openSnapshot(job.source);
  try {
    await options.onSnapshot?.(snapshotAt);
    const progress = new Map((await job.store.tables(job.moveId)).map((t) => [t.table, t]));
    for (const shape of job.shapes.filter((s) => s.kind === 'sharded')) {
      const state = progress.get(shape.table);
      if (state?.copyDone) continue;
      let lastKey = state?.lastKey;
      let total = state?.rowsCopied ?? 0;
      const where = bucketCondition(shape, job.bucketCount, job.spans);
      const order = shape.primaryKey.map(quoteId).join(', ');
      const started = Date.now();
      let copiedHere = 0;
      for (;;) {
        const after = lastKey ? ` AND ${pkTuple(shape)} > (${lastKey.map(() => '?').join(', ')})` : '';
        const batch = await rows(
          job.source,
          `SELECT ${shape.columns.map(quoteId).join(', ')} FROM ${quoteId(job.sourceDb)}.${quoteId(shape.table)} WHERE ${where}${after} ORDER BY ${order} LIMIT ${chunk}`,
          lastKey ? [...lastKey] : [],
        );
        if (batch.length === 0) break;
        await upsertRows(job.target, job.targetDb, shape, batch);
        lastKey = pkOf(shape, batch[batch.length - 1]!);
        total += batch.length;
        copiedHere += batch.length;
        await job.store.copyProgress(job.moveId, shape.table, lastKey, batch.length, false);
        await options.onChunk?.({ table: shape.table, rows: batch.length, total });
        if (options.rowsPerSecond && options.rowsPerSecond > 0) {
          const due = started + (copiedHere / options.rowsPerSecond) * 1000;
          const wait = due - Date.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        }
        if (batch.length < chunk) break;
      }
      await job.store.copyFinished(job.moveId, shape.table);
    }
  } finally {
    await job.source.query('COMMIT');
  }
  return snapshotAt;
}

import { invalidMergeSpec } from './merge-error.js';
import type { MergeOperator, Row } from './row.js';

/** `LIMIT offset, count` applied to the merged stream. */
export interface LimitOperator extends MergeOperator {
  readonly kind: 'limit';
  readonly offset: number;
  /** Rows to yield after the offset; undefined for no limit (`OFFSET` alone). */
  readonly count: number | undefined;
}

/**
 * Skips `offset` rows, then yields at most `count`. Shards were asked for
 * `LIMIT 0, offset + count` each (not `LIMIT offset, count`, the Atlas bug), so the page
 * is cut here, after the merge. Once the page is full it stops pulling and closes its
 * input, which closes the shard streams; `count` 0 never opens the input.
 */
export function createLimit(input: AsyncIterable<Row>, offset: number, count: number | undefined): LimitOperator {
  if (!Number.isSafeInteger(offset) || offset < 0) throw invalidMergeSpec(`limit offset must be a non-negative integer, got ${offset}`);
  if (count !== undefined && (!Number.isSafeInteger(count) || count < 0)) {
    throw invalidMergeSpec(`limit count must be a non-negative integer or undefined, got ${count}`);
  }
  return Object.freeze({
    kind: 'limit',
    inputs: [input],
    offset,
    count,
    describe: () => `Limit(offset=${offset}, count=${count ?? 'all'})`,
    [Symbol.asyncIterator]: () => page(input, offset, count),
  } as const);
}

async function* page(input: AsyncIterable<Row>, offset: number, count: number | undefined): AsyncGenerator<Row> {
  if (count === 0) return;
  let skipped = 0;
  let emitted = 0;
  let last: Row | undefined;
  for await (const row of input) {
    if (skipped < offset) {
      skipped++;
      continue;
    }
    if (++emitted === count) {
      // Breaking first closes the shard streams now, not when the consumer next asks.
      last = row;
      break;
    }
    yield row;
  }
  if (last !== undefined) yield last;
}

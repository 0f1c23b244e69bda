/**
 * Deep OFFSET across shards by windows (the bounded "second query" method, done in one round):
 * instead of every shard sending its first `offset + count` rows, each of the N inputs sends the
 * rows at its own positions `[start, start + rows)` around `w = ⌊offset / N⌋`, the position the
 * page would begin at if the shards' rows interleaved evenly. The smallest of the inputs' rows at
 * position `w` is a boundary every input can place exactly (`merge/locate-page.ts`); that gives
 * the global position of the boundary, and the page is cut from the rows between. When the rows
 * do not interleave well enough for the window to prove the page (skewed data), the read falls
 * back to the plain `LIMIT offset + count` path.
 */
import type { MergeSpec } from '../../merge/index.js';
import type { Pagination } from './pagination.js';

/** The window each input of a scattered page is sent, and the page it serves. */
export interface PageWindow {
  /** Position (in its input's order) of the first row each input sends: its LIMIT's offset. */
  readonly start: number;
  /** Rows each input is asked for: its LIMIT's count. */
  readonly rows: number;
  /** `⌊offset / inputs⌋`: the position whose rows give the boundary. */
  readonly boundary: number;
  /** The logical page. */
  readonly offset: number;
  readonly count: number;
}

/**
 * Rows sent on each side of the page's expected place in every input: `2·√(offset + count)`.
 * Under random interleaving of N inputs, an input's row at position `w` strays from the global
 * position `N·w` by about √(offset) rows; twice that covered every case of a simulation over
 * 4–64 inputs and offsets 1,000–100,000 (one failure in 100 at 1·√).
 */
export function windowMargin(offset: number, count: number): number {
  return Math.ceil(2 * Math.sqrt(offset + count));
}

/** Largest page the window handles (beyond it the positions are no longer exact JS numbers). */
const MAX_ROWS = 2 ** 40;

/**
 * The window of a scattered read over `inputs` statements, or undefined when the plain path is
 * to be used: the merge must be a plain k-way merge of sorted inputs (no grouping, DISTINCT,
 * HAVING, computed items or listed order: those change which rows exist after the merge), the
 * LIMIT must be pushed to the shards with an OFFSET slot to set, and the window must cost at
 * most half of the rows the plain path sends per input.
 */
export function pageWindowOf(page: Pagination | undefined, hasOffsetSlot: boolean, merge: MergeSpec, inputs: number): PageWindow | undefined {
  if (!page || !page.pushed || page.count === undefined || !hasOffsetSlot || inputs < 2) return undefined;
  if (page.count === 0n || page.offset === 0n || page.offset + page.count > BigInt(MAX_ROWS)) return undefined;
  if (!isPlainOrderedMerge(merge)) return undefined;
  const offset = Number(page.offset);
  const count = Number(page.count);
  const boundary = Math.floor(offset / inputs);
  const margin = windowMargin(offset, count);
  const start = Math.max(0, boundary - margin);
  const rows = boundary - start + count + margin;
  // The plain path asks every input for offset + count rows.
  if (rows * 2 > offset + count) return undefined;
  return { start, rows, boundary, offset, count };
}

function isPlainOrderedMerge(merge: MergeSpec): boolean {
  if (merge.kind !== 'ordered' || merge.unsortedInputs === true) return false;
  const empty = (list: readonly unknown[] | undefined) => list === undefined || list.length === 0;
  return empty(merge.groupBy) && empty(merge.aggregates) && empty(merge.compute) && merge.having === undefined && merge.distinct === undefined && merge.listedOrder === undefined;
}

/**
 * A shallow page (every input sends its first `offset + count` rows) over N inputs whose rows
 * interleave: the page holds about `(offset + count) / N` rows of each, so each input is sent
 * fewer rows — its share plus `3·√share + 2` — and the read proves afterwards that no input was
 * cut short (`merge/capped-inputs.ts`); where one was, it runs again the plain way. Under random
 * interleaving an input fills its cap in about 1 read in 500 (16 inputs, a page of 20). Undefined:
 * the plain path (the cap would not halve the rows, or the merge changes which rows exist).
 */
export function cappedInputRows(page: Pagination | undefined, merge: MergeSpec, inputs: number): number | undefined {
  if (!page || !page.pushed || page.count === undefined || inputs < 2) return undefined;
  const total = page.offset + page.count;
  if (total === 0n || total > BigInt(MAX_ROWS)) return undefined;
  if (!isPlainOrderedMerge(merge)) return undefined;
  const share = Number(total) / inputs;
  const rows = Math.ceil(share + 3 * Math.sqrt(share)) + 2;
  return rows * 2 <= Number(total) ? rows : undefined;
}

/**
 * Cuts a page from the windows the inputs of a scattered page sent (see
 * `plan/select/page-window.ts`), or says why the windows cannot prove it. Pure: rows in, rows out.
 *
 * Let `m` be the smallest of the inputs' rows at position `w` (the boundary). Every row an input
 * holds before its window is strictly before `m` once its window's first row is (the input is
 * sorted), so the rows before `m` in each input — `start` plus those of its window — are counted
 * exactly, and their sum `P` is `m`'s global position (at most `N·w ≤ offset`). A full window's
 * unsent rows come at or after its last row, so every row strictly between `m` and the smallest
 * last row of a full window, `C`, has been sent: the page is the rows `offset − P …` of their
 * merge, when there are enough of them. Ties of the sort key need no total order: rows equal to
 * `m` are all in the windows (their first rows are strictly before it), rows equal to `C` are
 * left out, and ties are merged in input order, as the plain path merges them.
 */
import type { RowComparator } from './row-comparator.js';
import type { Row } from './row.js';

/** What the windows were: each input's rows at positions `[start, start + rows)` in its order. */
export interface WindowShape {
  readonly start: number;
  readonly rows: number;
  readonly boundary: number;
  readonly offset: number;
  readonly count: number;
}

/** The page found: merge `inputs` (each sorted) and keep `count` rows after the first `skip`. */
export interface LocatedPage {
  readonly kind: 'page';
  readonly inputs: readonly (readonly Row[])[];
  readonly skip: number;
}

/** The windows do not determine the page; `reason` says why (for EXPLAIN and tests). */
export interface UnprovenPage {
  readonly kind: 'unproven';
  readonly reason: string;
}

export function locatePage(windows: readonly (readonly Row[])[], shape: WindowShape, compare: RowComparator): LocatedPage | UnprovenPage {
  const at = shape.boundary - shape.start;
  let m: Row | undefined;
  for (const rows of windows) {
    for (let i = 1; i < rows.length; i++) if (compare(rows[i - 1]!, rows[i]!) > 0) return { kind: 'unproven', reason: "an input's rows are not in the merge's order" };
    const row = rows[at];
    if (row !== undefined && (m === undefined || compare(row, m) < 0)) m = row;
  }
  if (m === undefined) {
    // No input reaches position w. From row 0 every input was sent whole: at most N·w ≤ offset rows, an empty page.
    return shape.start === 0 ? { kind: 'page', inputs: [], skip: 0 } : { kind: 'unproven', reason: `no input holds ${shape.boundary + 1} rows` };
  }
  const boundary = m;
  let before = 0;
  let cut: Row | undefined;
  for (const rows of windows) {
    if (shape.start > 0) {
      if (rows.length === 0) return { kind: 'unproven', reason: `an input holds at most ${shape.start} rows: its rows before the window are not counted` };
      if (compare(rows[0]!, boundary) >= 0) return { kind: 'unproven', reason: "an input's window begins after the boundary" };
    }
    before += shape.start + firstAtOrAfter(rows, boundary, compare);
    if (rows.length === shape.rows) {
      const last = rows[rows.length - 1]!;
      if (cut === undefined || compare(last, cut) < 0) cut = last;
    }
  }
  const skip = shape.offset - before;
  if (skip < 0) return { kind: 'unproven', reason: `the boundary lies at ${before}, after the offset` };
  const inputs = windows.map((rows) => rows.slice(firstAtOrAfter(rows, boundary, compare), cut === undefined ? rows.length : firstAtOrAfter(rows, cut, compare)));
  // Without a cut every input was sent to its end: fewer rows simply mean a short page.
  if (cut !== undefined && inputs.reduce((n, rows) => n + rows.length, 0) < skip + shape.count) {
    return { kind: 'unproven', reason: 'the windows end before the page does' };
  }
  return { kind: 'page', inputs, skip };
}

/** Index of the first row of the sorted `rows` not strictly before `bound`. */
function firstAtOrAfter(rows: readonly Row[], bound: Row, compare: RowComparator): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(rows[mid]!, bound) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

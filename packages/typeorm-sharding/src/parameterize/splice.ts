import { ShardingInternalError } from '../errors/index.js';

/** Replace `sql[start, end)` by `text`. An empty range inserts. */
export interface SqlEdit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

function byStart(a: { readonly start: number }, b: { readonly start: number }): number {
  return a.start - b.start;
}

/** Up to this many edits are ordered by insertion (a statement's few tokens), more by `Array.sort`. */
const INSERTION_SORT_MAX = 16;

/** `edits` by their start, ties in their given order (the array itself when it is in order already). */
export function inStartOrder<T extends { readonly start: number }>(edits: readonly T[]): readonly T[] {
  const n = edits.length;
  let i = 1;
  while (i < n && edits[i]!.start >= edits[i - 1]!.start) i++;
  if (i >= n) return edits;
  if (n > INSERTION_SORT_MAX) return edits.slice().sort(byStart);
  // Stable insertion sort: the rewrite of each shard's statement orders a handful of tokens,
  // for which allocating a comparator-driven sort costs more than the sort.
  const out = edits.slice();
  for (; i < n; i++) {
    const edit = out[i]!;
    let j = i - 1;
    while (j >= 0 && out[j]!.start > edit.start) {
      out[j + 1] = out[j]!;
      j--;
    }
    out[j + 1] = edit;
  }
  return out;
}

/** `edits` sorted by their start in place, ties in their given order (for an array the caller owns). */
export function inStartOrderInPlace<T extends { readonly start: number }>(edits: T[]): T[] {
  const n = edits.length;
  if (n > INSERTION_SORT_MAX) return edits.sort(byStart); // stable
  for (let i = 1; i < n; i++) {
    const edit = edits[i]!;
    let j = i - 1;
    while (j >= 0 && edits[j]!.start > edit.start) {
      edits[j + 1] = edits[j]!;
      j--;
    }
    edits[j + 1] = edit;
  }
  return edits;
}

/**
 * Applies non-overlapping edits, given in any order, to `sql` in one pass. Edits that
 * share a start keep their given order (so several inserts at one point stay in order).
 */
export function spliceSql(sql: string, edits: readonly SqlEdit[]): string {
  const n = edits.length;
  if (n === 0) return sql;
  const sorted = inStartOrder(edits);
  let out = '';
  let pos = 0;
  for (let i = 0; i < n; i++) {
    const edit = sorted[i]!;
    if (edit.start < pos || edit.end < edit.start || edit.end > sql.length) {
      throw new ShardingInternalError(
        `spliceSql: edit [${edit.start}, ${edit.end}) overlaps another edit or lies outside the text`,
        { stage: 'rewrite', sql },
      );
    }
    out += sql.slice(pos, edit.start) + edit.text;
    pos = edit.end;
  }
  return out + sql.slice(pos);
}

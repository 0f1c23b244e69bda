import type { MergeSpec, MergeSpecClauses } from './merge-spec.js';
import type { Row } from './row.js';

/**
 * The merge of buffered results when it is a plain concatenation (no ORDER BY, grouping,
 * computed or stripped columns, DISTINCT, listed order or LIMIT): the rows of result 0, then
 * of result 1, … — what `buildMerge` + `collectRows` give, without the async iteration per row
 * (a find of a few rows over a coalesced statement spends more on that than on its rows).
 * Undefined when the spec asks for anything more: the caller builds the full merge.
 */
export function concatBuffered(spec: MergeSpec, results: readonly (readonly Row[])[]): Row[] | undefined {
  if (!isPlainConcat(spec)) return undefined;
  if (results.length === 1) return results[0]!.slice();
  const rows: Row[] = [];
  for (const part of results) for (const row of part) rows.push(row);
  return rows;
}

/** True when the spec is a concatenation and nothing else (every clause absent or empty). */
export function isPlainConcat(spec: MergeSpec): boolean {
  return (
    spec.kind === 'concat' &&
    empty(spec.groupBy) &&
    empty(spec.aggregates) &&
    empty(spec.compute) &&
    spec.having === undefined &&
    spec.listedOrder === undefined &&
    spec.distinct === undefined &&
    spec.limit === undefined &&
    empty(spec.strip) &&
    empty(spec.rename) &&
    spec.integersAsNumbers !== true
  );
}

/**
 * Every clause of `MergeSpecClauses`, with whether `isPlainConcat` reads it: a clause added to
 * the spec does not compile until it is listed here, and so looked at there (closed world).
 * `columns` and `bigintForm` shape aggregates only.
 */
export const PLAIN_CONCAT_CLAUSES = {
  groupBy: true,
  aggregates: true,
  columns: false,
  bigintForm: false,
  compute: true,
  having: true,
  listedOrder: true,
  distinct: true,
  limit: true,
  strip: true,
  rename: true,
  integersAsNumbers: true,
} as const satisfies Record<keyof MergeSpecClauses, boolean>;

function empty(list: readonly unknown[] | undefined): boolean {
  return list === undefined || list.length === 0;
}

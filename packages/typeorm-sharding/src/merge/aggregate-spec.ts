import type { Collation } from './collation.js';
import type { SortKeyType } from './compare-values.js';

/** Aggregate functions whose per-shard partial results the merge can combine. */
export type AggregateFunction = 'COUNT' | 'SUM' | 'MIN' | 'MAX' | 'AVG' | 'COUNT_DISTINCT';

/**
 * `COUNT(...)` or `SUM(...)` selected as `alias`: each input row holds a partial count or
 * sum, and the merge adds them exactly. The result keeps the drivers' representation:
 * numbers stay numbers (SQLite, mysql2's COUNT), strings become a decimal string
 * (mysql2's SUM of integers or DECIMAL, scale kept: `'12.50'`), bigints stay bigints.
 * SUM of no non-NULL value is NULL; COUNT of nothing is 0.
 */
export interface CountOrSumAggregate {
  readonly alias: string;
  readonly fn: 'COUNT' | 'SUM';
}

/**
 * `MIN(...)`/`MAX(...)` selected as `alias`, compared as a sort key of `type` would be.
 * Partial results are compared by their own value, or, with `keyColumn`, by a column the
 * plan selected next to them that holds the server's sort key of that value (e.g. its
 * collation weights): the merge then keeps the `alias` value of the row whose key wins,
 * and that row's key in `keyColumn`, so that an ORDER BY of the aggregate can sort by it.
 */
export interface MinOrMaxAggregate {
  readonly alias: string;
  readonly fn: 'MIN' | 'MAX';
  /** Type of the compared values (of `keyColumn` when given). @default 'auto' */
  readonly type?: SortKeyType;
  /** @default 'binary' */
  readonly collation?: Collation;
  /** Derived column holding the sort key of each partial result (left in the row: the plan strips it). */
  readonly keyColumn?: string;
}

/**
 * `AVG(x)` selected as `alias`. Averages cannot be averaged, so the plan selects
 * `SUM(x) AS sumAlias` and `COUNT(x) AS countAlias` next to it; the merge divides the
 * totals, writes `alias` (any partial average in the row is ignored) and removes the two
 * derived columns. A decimal-string sum (mysql2) gives a decimal string with
 * `scaleIncrement` more digits, rounded half away from zero, as MySQL's AVG does; a
 * number or bigint sum gives a number (SQLite's AVG is a double).
 */
export interface AvgAggregate {
  readonly alias: string;
  readonly fn: 'AVG';
  readonly sumAlias: string;
  readonly countAlias: string;
  /** MySQL's `div_precision_increment`. @default 4 */
  readonly scaleIncrement?: number;
}

/**
 * `COUNT(DISTINCT x)` selected as `alias`. Partial distinct counts cannot be added (a
 * value may occur on several shards), so the plan rewrites the statement to send the
 * values themselves: `x AS valuesAlias` is selected and `x` appended to the GROUP BY (or
 * `SELECT DISTINCT <group keys>, x` when there are no other aggregates). Each input row
 * is then one (group, value) pair and the other aggregates stay valid partials. The merge
 * counts the distinct non-NULL values per group, writes `alias` as a number and removes
 * `valuesAlias`. Memory grows with the number of distinct values.
 */
export interface CountDistinctAggregate {
  readonly alias: string;
  readonly fn: 'COUNT_DISTINCT';
  readonly valuesAlias: string;
  /** Collation under which text values are the same value. @default 'binary' */
  readonly collation?: Collation;
}

/** One aggregate of the select list, as the merge combines it. */
export type AggregateSpec = CountOrSumAggregate | MinOrMaxAggregate | AvgAggregate | CountDistinctAggregate;

/** The spec variant of one aggregate function. */
export type AggregateSpecOf<F extends AggregateFunction> = AggregateSpec extends infer S
  ? S extends { readonly fn: infer G }
    ? F extends G
      ? S
      : never
    : never
  : never;

/** `SUM(amount)` / `AVG(price)` form of an aggregate for `describe()`. */
export function describeAggregate(spec: AggregateSpec): string {
  return `${spec.fn}(${spec.alias})`;
}

/** The columns an aggregate reads that are not its own alias: derived by the plan, removed by the merge. */
export function derivedColumnsOf(spec: AggregateSpec): readonly string[] {
  switch (spec.fn) {
    case 'AVG':
      return [spec.sumAlias, spec.countAlias];
    case 'COUNT_DISTINCT':
      return [spec.valuesAlias];
    case 'COUNT':
    case 'SUM':
    case 'MIN':
    case 'MAX':
      return [];
  }
}

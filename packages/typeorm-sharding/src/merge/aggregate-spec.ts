import type { Collation } from '../values/collation.js';
import type { SortKeyType } from '../values/compare-values.js';

/** Aggregate functions whose per-shard partial results the merge can combine. */
export type AggregateFunction =
  | 'COUNT'
  | 'SUM'
  | 'MIN'
  | 'MAX'
  | 'AVG'
  | 'COUNT_DISTINCT'
  | 'SUM_DISTINCT'
  | 'AVG_DISTINCT'
  | 'BIT_AND'
  | 'BIT_OR'
  | 'BIT_XOR'
  | 'VARIANCE'
  | 'GROUP_CONCAT';

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
  /**
   * SUM only: a column holding each shard's sum at full precision (`SUM(CAST(x AS DECIMAL(65,
   * 30)))`), for arguments the server computes with more digits than it shows (a division).
   * Partials are read from it; `alias` gets the total rounded as the shards rounded theirs,
   * and this column the exact total (for expressions over the sum).
   */
  readonly exactAlias?: string;
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
  /**
   * The key column is the value itself at full precision (`MAX(CAST(x / 3 AS DECIMAL(65, 30)))`):
   * the server shows a quotient rounded but computes with more digits; expressions over the
   * aggregate read the key.
   */
  readonly keyIsExactValue?: boolean;
  /** Columns taken from the partial row whose value wins (an ORDER BY key of the result: ENUM's `MIN(c) + 0`). */
  readonly companions?: readonly string[];
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

/**
 * `SUM(DISTINCT x)` / `AVG(DISTINCT x)`: like {@link CountDistinctAggregate}, the shards send
 * the values (`x AS valuesAlias`, `x` appended to the GROUP BY); the merge adds each
 * distinct non-NULL value once, exactly. The result takes the representation of the
 * shards' own partial result in `alias` (mysql2's DECIMAL text, SQLite's number).
 */
export interface DistinctSumAggregate {
  readonly alias: string;
  readonly fn: 'SUM_DISTINCT' | 'AVG_DISTINCT';
  readonly valuesAlias: string;
  /** Column whose values decide sameness (a `WEIGHT_STRING` of the value); @default valuesAlias */
  readonly distinctAlias?: string;
  /** MySQL's `div_precision_increment`, for AVG of exact values. @default 4 */
  readonly scaleIncrement?: number;
}

/**
 * `BIT_AND(x)`, `BIT_OR(x)`, `BIT_XOR(x)` (MySQL): partial results combine with the same
 * operation over unsigned 64-bit integers. Over no rows BIT_AND is 2^64 − 1, the others 0.
 */
export interface BitAggregate {
  readonly alias: string;
  readonly fn: 'BIT_AND' | 'BIT_OR' | 'BIT_XOR';
}

/**
 * `VARIANCE` / `VAR_POP` / `VAR_SAMP` / `STD` / `STDDEV` / `STDDEV_POP` / `STDDEV_SAMP`: the
 * shards send `COUNT(x)`, `SUM(x)` and `SUM(x * x)`; the merge computes the variance from the
 * exact totals and rounds once to a double (the server itself accumulates in doubles, so the
 * last digits may differ from one database's answer).
 */
export interface VarianceAggregate {
  readonly alias: string;
  readonly fn: 'VARIANCE';
  readonly sample: boolean;
  readonly sqrt: boolean;
  readonly countAlias: string;
  /** Exact arguments: each shard's SUM(x) and SUM(x * x), combined exactly. */
  readonly sumAlias?: string;
  readonly sumSquaresAlias?: string;
  /**
   * DOUBLE arguments: each shard's AVG(x) and VAR_POP(x) (the server's stable running
   * variance), combined as Chan et al. combine partial variances: Σx² − (Σx)²/n over
   * rounded double sums would cancel catastrophically (values all equal give 1e-17, not 0).
   */
  readonly meanAlias?: string;
  readonly varPopAlias?: string;
  /** DOUBLE arguments: each shard's MIN and MAX (equal everywhere: every value is one, the variance exactly 0). */
  readonly minAlias?: string;
  readonly maxAlias?: string;
  /**
   * Decimal places the server shows the result with (MySQL: the argument's scale + 4 for an
   * exact argument, e.g. 1.2472 for integers); undefined: every digit of the double.
   */
  readonly decimals?: number;
}

/**
 * `GROUP_CONCAT([DISTINCT] x [ORDER BY …] [SEPARATOR s])` (MySQL): the shards send the values
 * (`x AS valuesAlias`, the ORDER BY keys as `orderBy` columns, `COUNT(*) AS countAlias` for
 * repeated values; all appended to the GROUP BY); the merge orders them, repeats each
 * `count` times (once under DISTINCT), joins them and cuts the result at `maxLength` bytes
 * as the server's `group_concat_max_len` does.
 */
export interface GroupConcatAggregate {
  readonly alias: string;
  readonly fn: 'GROUP_CONCAT';
  readonly valuesAlias: string;
  /** Column whose values decide sameness under DISTINCT; @default valuesAlias */
  readonly distinctAlias?: string;
  readonly distinct: boolean;
  readonly orderBy: readonly { readonly column: string; readonly direction: 'ASC' | 'DESC'; readonly type: SortKeyType; readonly collation?: Collation }[];
  /** Multiplicity of each (value, order keys) row; absent under DISTINCT. */
  readonly countAlias?: string;
  readonly separator: string;
  /** @default 1048576 (MariaDB's default `group_concat_max_len`) */
  readonly maxLength?: number;
}

/** One aggregate of the select list, as the merge combines it. */
export type AggregateSpec =
  | CountOrSumAggregate
  | MinOrMaxAggregate
  | AvgAggregate
  | CountDistinctAggregate
  | DistinctSumAggregate
  | BitAggregate
  | VarianceAggregate
  | GroupConcatAggregate;

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
    case 'SUM_DISTINCT':
    case 'AVG_DISTINCT':
      return [spec.valuesAlias, ...(spec.distinctAlias ? [spec.distinctAlias] : [])];
    case 'VARIANCE':
      return [spec.countAlias, spec.sumAlias, spec.sumSquaresAlias, spec.meanAlias, spec.varPopAlias, spec.minAlias, spec.maxAlias].filter((c): c is string => c !== undefined);
    case 'GROUP_CONCAT':
      return [spec.valuesAlias, ...(spec.distinctAlias ? [spec.distinctAlias] : []), ...spec.orderBy.map((o) => o.column), ...(spec.countAlias ? [spec.countAlias] : [])];
    case 'COUNT':
    case 'SUM':
    case 'MIN':
    case 'MAX':
    case 'BIT_AND':
    case 'BIT_OR':
    case 'BIT_XOR':
      return [];
  }
}

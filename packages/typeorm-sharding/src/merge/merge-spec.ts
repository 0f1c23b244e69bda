import type { AggregateSpec } from './aggregate-spec.js';
import type { GroupKey } from './canonical-key.js';
import type { SortKey } from './row-comparator.js';
import type { Row } from './row.js';

/** `LIMIT offset, count` of the logical statement (the shards were sent `LIMIT 0, offset + count`). */
export interface LimitSpec {
  readonly offset: number;
  /** Rows after the offset; undefined for no limit. */
  readonly count?: number;
}

/** HAVING of the logical statement, evaluated on merged rows. */
export interface HavingSpec {
  /** True for rows to keep; reads aggregate aliases (and derived HAVING columns) of the merged row. */
  readonly predicate: (row: Row) => boolean;
  /** The condition's text for EXPLAIN, e.g. `cnt > 2`. @default 'predicate' */
  readonly label?: string;
}

/** SELECT DISTINCT of the logical statement. */
export interface DistinctSpec {
  /**
   * The columns that decide whether two rows are the same, with their collations (a `_ci`
   * text column, or a `WEIGHT_STRING()` derived column standing for it). When omitted,
   * every column of the row is compared exactly.
   */
  readonly columns?: readonly GroupKey[];
}

/** A select item (or hidden ORDER BY key) the merge computes from a merged row: `SUM(a) / COUNT(*)`. */
export interface ComputeSpec {
  readonly column: string;
  /**
   * The value of the column for a merged row. `hint` is a value the shards returned for the
   * column (they computed the expression on their part of the data): the driver's
   * representation of its type, which the result keeps.
   */
  readonly evaluate: (row: Row, hint: unknown) => unknown;
  /** For EXPLAIN. */
  readonly label: string;
}

/** What every merge may add after combining the inputs, in SQL's order of evaluation. */
export interface MergeSpecClauses {
  /**
   * GROUP BY result columns. Each input row is then a partial group (the shards ran the
   * GROUP BY too, without HAVING/LIMIT) and rows of one group are merged into one.
   */
  readonly groupBy?: readonly GroupKey[];
  /**
   * Aggregates of the select list to combine. With an empty `groupBy` this is a global
   * aggregate: exactly one row comes out, even when every input is empty.
   */
  readonly aggregates?: readonly AggregateSpec[];
  /**
   * The result columns of a global aggregate, in order: when no input row arrives, the one
   * row made holds them (NULL where no aggregate writes).
   */
  readonly columns?: readonly string[];
  /** Computed after grouping, before HAVING (which may read them). */
  readonly compute?: readonly ComputeSpec[];
  /** Applied after grouping. */
  readonly having?: HavingSpec;
  /**
   * No ORDER BY, and the WHERE listed the rows by their key values: return them in that order
   * (TypeORM maps such re-reads to its entities by position). `tuples` are the listed values
   * of `columns`, in order.
   */
  readonly listedOrder?: { readonly columns: readonly string[]; readonly tuples: readonly (readonly unknown[])[] };
  /** Applied after HAVING, before ORDER BY. */
  readonly distinct?: DistinctSpec;
  /** Applied after ORDER BY. */
  readonly limit?: LimitSpec;
  /** Derived columns to remove last, e.g. `['__sk0', '__having_0']`. */
  readonly strip?: readonly string[];
  /** SQLite shards read with safe integers: give TypeORM numbers, as its driver would. */
  readonly integersAsNumbers?: boolean;
  /**
   * How the driver returns a BIGINT such as COUNT's (mysql2 with TypeORM's `bigNumberStrings`:
   * text), for the one row of a global aggregate that no shard sent a row for. @default 'number'
   */
  readonly bigintForm?: 'text' | 'number';
  /** Columns to rename last (unaliased items the shards were asked to alias), keeping the column order. */
  readonly rename?: readonly { readonly from: string; readonly to: string }[];
}

/** Inputs in no particular order (no ORDER BY): they are read one after another. */
export interface ConcatMergeSpec extends MergeSpecClauses {
  readonly kind: 'concat';
}

/**
 * The statement has ORDER BY `orderBy`, which every shard also applied. Without grouping
 * the inputs are merged by a streaming k-way merge. With grouping they are grouped first
 * and the groups sorted in memory, unless the first `groupBy.length` sort keys are exactly
 * the group keys (exact, non-`case-insensitive` collations): then groups are formed on
 * the fly from the merged stream and come out already in order.
 */
export interface OrderedMergeSpec extends MergeSpecClauses {
  readonly kind: 'ordered';
  /** Result columns to order by; derived ORDER BY expressions are selected as `__sk<n>` by the plan. */
  readonly orderBy: readonly SortKey[];
  /**
   * The inputs are not sorted by `orderBy` (a coalesced statement whose shards' rows the
   * server could not sort by the merge's keys): they are sorted, or grouped, in memory.
   */
  readonly unsortedInputs?: boolean;
}

/**
 * How the rows of one logical SELECT are put back together from its physical statements'
 * results: plain readonly data produced by the plan stage and turned into operators by
 * `buildMerge`. Clauses are applied in SQL's order: group/aggregate → HAVING →
 * DISTINCT → ORDER BY → OFFSET/LIMIT → strip derived columns.
 */
export type MergeSpec = ConcatMergeSpec | OrderedMergeSpec;

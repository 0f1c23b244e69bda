/**
 * What the merge has to do with rows of the outermost SELECT, in terms of result columns.
 * Produced by `analyzeSelect`, turned into a `MergeSpec` by `mergeSpecOf`.
 */

/** How values of a sort key compare (mirrors the merge stage's SortKeyType). */
export type SortType = 'numeric' | 'string' | 'date' | 'auto';

export interface ShapeSortKey {
  /** Result column the merge reads (an existing alias or a derived column). */
  readonly column: string;
  readonly direction: 'ASC' | 'DESC';
  readonly type: SortType;
  readonly caseInsensitive: boolean;
}

export type ShapeAggregateFn = 'COUNT' | 'SUM' | 'MIN' | 'MAX';

export interface ShapeAggregate {
  readonly column: string;
  readonly fn: ShapeAggregateFn;
  readonly type: SortType;
}

export interface SelectShape {
  readonly orderBy: readonly ShapeSortKey[];
  readonly groupBy: readonly string[];
  readonly aggregates: readonly ShapeAggregate[];
  readonly distinct: boolean;
  /**
   * True when every group (GROUP BY / DISTINCT row) contains the shard key, so no group spans
   * two shards: LIMIT can be pushed down and per-shard groups are already final.
   */
  readonly groupsAreShardLocal: boolean;
}

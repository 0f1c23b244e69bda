/**
 * What the merge has to do with rows of the outermost SELECT, in terms of result columns.
 * Produced by `analyzeSelect`, turned into a `MergeSpec` by `mergeSpecOf`.
 */
import type { AggregateSpec, GroupKey, SortKey } from '../merge/index.js';
import type { CompiledHaving } from './having.js';

export interface SelectShape {
  readonly orderBy: readonly SortKey[];
  readonly groupBy: readonly GroupKey[];
  readonly aggregates: readonly AggregateSpec[];
  readonly distinct: boolean;
  /** What makes two rows the same for DISTINCT (derived keys where needed); undefined: every column, exactly. */
  readonly distinctColumns?: readonly GroupKey[] | undefined;
  /** HAVING, compiled for evaluation after the merge (used only when groups span shards). */
  readonly having: CompiledHaving | undefined;
  /**
   * True when every group (GROUP BY / DISTINCT row) contains the shard key, so no group spans
   * two shards: LIMIT and HAVING can run on the shards and per-shard groups are already final.
   */
  readonly groupsAreShardLocal: boolean;
}

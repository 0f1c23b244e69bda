export type { Row, Describable, MergeOperator } from './row.js';
export { MergeValueError } from '../values/value-error.js';
export { createRowComparator, describeSortKeys, type RowComparator, type SortKey } from './row-comparator.js';
export { canonicalFullRowKey, canonicalRowKey, canonicalValueKey, type GroupKey } from './canonical-key.js';
export { createMergeSort, type MergeSortOperator } from './merge-sort.js';
export { createConcat, type ConcatOperator } from './concat.js';
export { createLimit, type LimitOperator } from './limit.js';
export {
  derivedColumnsOf,
  describeAggregate,
  type AggregateFunction,
  type AggregateSpec,
  type AggregateSpecOf,
  type AvgAggregate,
  type BitAggregate,
  type CountDistinctAggregate,
  type CountOrSumAggregate,
  type DistinctSumAggregate,
  type GroupConcatAggregate,
  type MinOrMaxAggregate,
  type VarianceAggregate,
} from './aggregate-spec.js';
export { createAggregateState, type AggregateState } from './accumulators.js';
export { ExactSum } from './exact-sum.js';
export { createScalarAggregate, type ScalarAggregateOperator } from './aggregate.js';
export { createHashGroupBy, createStreamGroupBy, type HashGroupByOperator, type StreamGroupByOperator } from './group-by.js';
export { createDistinct, type DistinctOperator } from './distinct.js';
export { createFilter, type FilterOperator } from './filter.js';
export { createStripColumns, type StripColumnsOperator } from './strip-columns.js';
export { createMemorySort, type MemorySortOperator } from './memory-sort.js';
export type { ComputeSpec, ConcatMergeSpec, DistinctSpec, HavingSpec, LimitSpec, MergeSpec, MergeSpecClauses, OrderedMergeSpec } from './merge-spec.js';
export { createCompute, type ComputeOperator } from './compute.js';
export { buildMerge, inputOrderOf, type MergePipeline } from './build-merge.js';
export { explainTree } from './explain.js';
export { collectRows } from './collect-rows.js';
export { concatBuffered, isPlainConcat } from './concat-buffered.js';
export { createListedOrder, type ListedOrderOperator } from './listed-order.js';
export { combineBranches, setOperation, type SetOperation, type SetPrecedence } from './set-operations.js';
export { cappedInputsProven } from './capped-inputs.js';

import { createScalarAggregate } from './aggregate.js';
import type { GroupKey } from './canonical-key.js';
import { createCompute } from './compute.js';
import type { Collation } from '../values/collation.js';
import { createConcat } from './concat.js';
import { createDistinct } from './distinct.js';
import { explainTree } from './explain.js';
import { createFilter } from './filter.js';
import { createHashGroupBy, createStreamGroupBy } from './group-by.js';
import { createLimit } from './limit.js';
import { createListedOrder } from './listed-order.js';
import { createMemorySort } from './memory-sort.js';
import { invalidMergeSpec } from './merge-error.js';
import { createMergeSort } from './merge-sort.js';
import type { MergeSpec } from './merge-spec.js';
import type { SortKey } from './row-comparator.js';
import type { MergeOperator, Row } from './row.js';
import { createStripColumns } from './strip-columns.js';

/** The operators of one logical SELECT's merge, ready to iterate (once). */
export interface MergePipeline extends AsyncIterable<Row> {
  /** The spec it was built from. */
  readonly spec: MergeSpec;
  /** The outermost operator. */
  readonly root: MergeOperator;
  /** The whole pipeline as a multi-line tree (see `explainTree`), for EXPLAIN and golden tests. */
  describe(): string;
}

/**
 * Turns a {@link MergeSpec} into operators over `inputs` (one per physical statement, in
 * a fixed order: ties of the ordered merge go to the lower index). Building reads nothing;
 * iterating pulls rows, and closing the pipeline closes every input.
 */
export function buildMerge(spec: MergeSpec, inputs: readonly AsyncIterable<Row>[]): MergePipeline {
  const root = buildOperators(spec, inputs);
  return Object.freeze({
    spec,
    root,
    describe: () => explainTree(root),
    [Symbol.asyncIterator]: () => root[Symbol.asyncIterator](),
  });
}

/**
 * The order the merge expects within each input: all sort keys for a k-way merge of rows, the
 * keys before the first computed one for a streamed GROUP BY, none otherwise (the merge sorts
 * in memory or concatenates). A source that feeds several shards' rows as one input (a
 * coalesced statement) must sort them by these keys.
 */
export function inputOrderOf(spec: MergeSpec): readonly SortKey[] | undefined {
  const orderBy = spec.kind === 'ordered' && !spec.unsortedInputs ? spec.orderBy : undefined;
  if (orderBy === undefined) return undefined;
  const groupBy = spec.groupBy ?? [];
  const grouped = groupBy.length > 0 || (spec.aggregates ?? []).length > 0;
  if (!grouped) return orderBy;
  if (groupBy.length === 0 || !groupsStreamFrom(groupBy, orderBy)) return undefined;
  const computed = new Set((spec.compute ?? []).map((c) => c.column));
  const present = orderBy.findIndex((key) => computed.has(key.column));
  return present < 0 ? orderBy : orderBy.slice(0, present);
}

function buildOperators(spec: MergeSpec, inputs: readonly AsyncIterable<Row>[]): MergeOperator {
  const orderBy = spec.kind === 'ordered' ? spec.orderBy : undefined;
  if (orderBy !== undefined && orderBy.length === 0) throw invalidMergeSpec("'ordered' merge without sort keys");
  const groupBy = spec.groupBy ?? [];
  const aggregates = spec.aggregates ?? [];
  const grouped = groupBy.length > 0 || aggregates.length > 0;

  let op: MergeOperator;
  let sorted: boolean;
  const unsorted = spec.kind === 'ordered' && spec.unsortedInputs === true;
  if (!grouped) {
    op = orderBy === undefined ? createConcat(inputs) : unsorted ? createConcat(inputs) : createMergeSort(inputs, orderBy);
    sorted = !unsorted;
  } else if (groupBy.length === 0) {
    op = createScalarAggregate(createConcat(inputs), aggregates, spec.columns, spec.bigintForm);
    sorted = true;
  } else if (orderBy !== undefined && !unsorted && groupsStreamFrom(groupBy, orderBy)) {
    // The shards sorted by every key, but keys the merge computes later are not in their rows:
    // merging by the keys before the first of those keeps each group's rows together.
    op = createStreamGroupBy(createMergeSort(inputs, inputOrderOf(spec)!), orderBy.slice(0, groupBy.length), aggregates);
    sorted = true;
  } else {
    op = createHashGroupBy(createConcat(inputs), groupBy, aggregates);
    sorted = false;
  }

  if (spec.compute !== undefined && spec.compute.length > 0) {
    op = createCompute(op, spec.compute);
    // Computed ORDER BY keys are only known now.
    if (orderBy !== undefined && spec.compute.some((c) => orderBy.some((k) => k.column === c.column))) sorted = false;
  }
  if (spec.having !== undefined) op = createFilter(op, spec.having.predicate, spec.having.label);
  if (spec.distinct !== undefined) op = createDistinct(op, spec.distinct.columns);
  if (orderBy !== undefined && !sorted) op = createMemorySort(op, orderBy);
  if (orderBy === undefined && spec.listedOrder !== undefined) op = createListedOrder(op, spec.listedOrder.columns, spec.listedOrder.tuples);
  if (spec.limit !== undefined) op = createLimit(op, spec.limit.offset, spec.limit.count);
  if ((spec.strip !== undefined && spec.strip.length > 0) || (spec.rename !== undefined && spec.rename.length > 0) || spec.integersAsNumbers) {
    op = createStripColumns(op, spec.strip ?? [], spec.rename, spec.integersAsNumbers);
  }
  return op;
}

/**
 * True when ordering by `orderBy` puts the rows of each group next to each other: its
 * first keys are exactly the group keys. Case-insensitive keys are excluded because their
 * order is approximated here and a shard ordering them differently would split a group.
 */
function groupsStreamFrom(groupBy: readonly GroupKey[], orderBy: readonly SortKey[]): boolean {
  const leading = orderBy.slice(0, groupBy.length);
  const columns = new Set(leading.map((key) => key.column));
  const exact = (key: { readonly collation?: Collation }) => key.collation !== 'case-insensitive';
  return columns.size === groupBy.length && leading.every(exact) && groupBy.every((key) => columns.has(key.column) && exact(key));
}

import { createAggregateState, type AggregateState } from './accumulators.js';
import { describeAggregate, type AggregateSpec } from './aggregate-spec.js';
import { canonicalRowKey, type GroupKey } from './canonical-key.js';
import { MergeValueError } from './merge-error.js';
import { createRowComparator, type SortKey } from './row-comparator.js';
import type { MergeOperator, Row } from './row.js';

/** GROUP BY over rows in any order, grouped in a hash map. */
export interface HashGroupByOperator extends MergeOperator {
  readonly kind: 'hash-group-by';
  readonly keys: readonly GroupKey[];
  readonly aggregates: readonly AggregateSpec[];
}

/** GROUP BY over rows already ordered by the group keys, one group in memory at a time. */
export interface StreamGroupByOperator extends MergeOperator {
  readonly kind: 'stream-group-by';
  readonly keys: readonly SortKey[];
  readonly aggregates: readonly AggregateSpec[];
}

function describeGroupBy(name: string, columns: readonly string[], aggregates: readonly AggregateSpec[]): string {
  const parts = [`keys=[${columns.join(', ')}]`];
  if (aggregates.length > 0) parts.push(`aggregates=[${aggregates.map(describeAggregate).join(', ')}]`);
  return `${name}(${parts.join(', ')})`;
}

/**
 * Groups rows whose key columns are equal (by {@link canonicalRowKey}, so `_ci` keys
 * group case-insensitively) and merges each group's partial aggregates. Reads the whole
 * input before the first group comes out; groups come out in the order first seen.
 * Memory is O(groups).
 */
export function createHashGroupBy(
  input: AsyncIterable<Row>,
  keys: readonly GroupKey[],
  aggregates: readonly AggregateSpec[],
): HashGroupByOperator {
  return Object.freeze({
    kind: 'hash-group-by',
    inputs: [input],
    keys,
    aggregates,
    describe: () => describeGroupBy('HashGroupBy', keys.map((key) => key.column), aggregates),
    [Symbol.asyncIterator]: () => hashGroups(input, keys, aggregates),
  } as const);
}

async function* hashGroups(input: AsyncIterable<Row>, keys: readonly GroupKey[], aggregates: readonly AggregateSpec[]): AsyncGenerator<Row> {
  const groups = new Map<string, { readonly first: Row; readonly state: AggregateState }>();
  for await (const row of input) {
    const key = canonicalRowKey(row, keys);
    let group = groups.get(key);
    if (group === undefined) {
      group = { first: row, state: createAggregateState(aggregates) };
      groups.set(key, group);
    }
    group.state.add(row);
  }
  for (const group of groups.values()) yield group.state.finish(group.first);
}

/**
 * Groups an input sorted so that rows of one group are adjacent: a new group starts
 * where the comparator on `keys` changes (ShardingSphere's stream group-by; feed it a
 * merge sort by the group keys). Output keeps the input order; memory is one group.
 * Throws {@link MergeValueError} if a row sorts before the current group's.
 */
export function createStreamGroupBy(
  input: AsyncIterable<Row>,
  keys: readonly SortKey[],
  aggregates: readonly AggregateSpec[],
): StreamGroupByOperator {
  const sameGroup = createRowComparator(keys);
  return Object.freeze({
    kind: 'stream-group-by',
    inputs: [input],
    keys,
    aggregates,
    describe: () => describeGroupBy('StreamGroupBy', keys.map((key) => key.column), aggregates),
    [Symbol.asyncIterator]: () => streamGroups(input, sameGroup, aggregates),
  } as const);
}

async function* streamGroups(
  input: AsyncIterable<Row>,
  compareKeys: (a: Row, b: Row) => number,
  aggregates: readonly AggregateSpec[],
): AsyncGenerator<Row> {
  let first: Row | undefined;
  let state = createAggregateState(aggregates);
  for await (const row of input) {
    const order = first === undefined ? 0 : compareKeys(first, row);
    // A row sorting before its predecessor means the shards did not order as the plan
    // said; going on would split a group into two output rows.
    if (order > 0) throw new MergeValueError('StreamGroupBy input is not ordered by the group keys');
    if (order !== 0 && first !== undefined) {
      yield state.finish(first);
      first = undefined;
      state = createAggregateState(aggregates);
    }
    first ??= row;
    state.add(row);
  }
  if (first !== undefined) yield state.finish(first);
}

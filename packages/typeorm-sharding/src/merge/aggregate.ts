import { createAggregateState } from './accumulators.js';
import { describeAggregate, type AggregateSpec } from './aggregate-spec.js';
import type { MergeOperator, Row } from './row.js';

export type {
  AggregateFunction,
  AggregateSpec,
  AvgAggregate,
  CountDistinctAggregate,
  CountOrSumAggregate,
  MinOrMaxAggregate,
} from './aggregate-spec.js';

/** Aggregates without GROUP BY: every input row is a partial of the one result row. */
export interface ScalarAggregateOperator extends MergeOperator {
  readonly kind: 'scalar-aggregate';
  readonly aggregates: readonly AggregateSpec[];
}

/**
 * Combines the partial aggregates of every input row into exactly one row, as SQL does
 * for an aggregate query without GROUP BY even over no rows (COUNT 0, the others NULL).
 * Non-aggregate columns take the first row's values.
 */
export function createScalarAggregate(input: AsyncIterable<Row>, aggregates: readonly AggregateSpec[], columns: readonly string[] = []): ScalarAggregateOperator {
  return Object.freeze({
    kind: 'scalar-aggregate',
    inputs: [input],
    aggregates,
    describe: () => `ScalarAggregate(${aggregates.map(describeAggregate).join(', ')})`,
    [Symbol.asyncIterator]: () => aggregateAll(input, aggregates, columns),
  } as const);
}

async function* aggregateAll(input: AsyncIterable<Row>, aggregates: readonly AggregateSpec[], columns: readonly string[]): AsyncGenerator<Row> {
  const state = createAggregateState(aggregates);
  let first: Row | undefined;
  for await (const row of input) {
    first ??= row;
    state.add(row);
  }
  // No row at all: SQL still answers one, with NULL in every column that is not an aggregate.
  yield state.finish(first ?? (columns.length > 0 ? Object.fromEntries(columns.map((c) => [c, null])) : undefined));
}

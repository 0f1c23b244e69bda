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
export function createScalarAggregate(
  input: AsyncIterable<Row>,
  aggregates: readonly AggregateSpec[],
  columns: readonly string[] = [],
  bigintForm: 'text' | 'number' = 'number',
): ScalarAggregateOperator {
  return Object.freeze({
    kind: 'scalar-aggregate',
    inputs: [input],
    aggregates,
    describe: () => `ScalarAggregate(${aggregates.map(describeAggregate).join(', ')})`,
    [Symbol.asyncIterator]: () => aggregateAll(input, aggregates, columns, bigintForm),
  } as const);
}

async function* aggregateAll(input: AsyncIterable<Row>, aggregates: readonly AggregateSpec[], columns: readonly string[], bigintForm: 'text' | 'number'): AsyncGenerator<Row> {
  const state = createAggregateState(aggregates);
  let first: Row | undefined;
  for await (const row of input) {
    first ??= row;
    state.add(row);
  }
  // No row at all: SQL still answers one, with NULL in every column that is not an aggregate;
  // a count's 0 comes in the driver's form of a BIGINT (no shard row shows it).
  yield state.finish(first ?? emptyTemplate(aggregates, columns, bigintForm));
}

function emptyTemplate(aggregates: readonly AggregateSpec[], columns: readonly string[], bigintForm: 'text' | 'number'): Row | undefined {
  const counts = aggregates.filter((a) => a.fn === 'COUNT' || a.fn === 'COUNT_DISTINCT');
  if (columns.length === 0 && counts.length === 0) return undefined;
  // The columns in their order (the select list's, else the aggregates'), counts with their 0.
  const names = columns.length > 0 ? columns : aggregates.map((a) => a.alias);
  const template: Row = Object.fromEntries(names.map((c) => [c, null]));
  for (const a of counts) template[a.alias] = bigintForm === 'text' ? '0' : 0;
  return template;
}

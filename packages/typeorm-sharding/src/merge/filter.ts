import type { MergeOperator, Row } from './row.js';

/** Keeps the rows a predicate accepts: HAVING, evaluated on merged aggregates. */
export interface FilterOperator extends MergeOperator {
  readonly kind: 'filter';
  readonly predicate: (row: Row) => boolean;
  /** Text of the condition for `describe()`, e.g. `cnt > 2`. */
  readonly label: string;
}

/**
 * Yields the rows for which `predicate` is true. HAVING cannot run on the shards (a
 * group's partial aggregates are not its totals), so the plan drops it from the
 * physical statements and applies it here, after grouping.
 */
export function createFilter(input: AsyncIterable<Row>, predicate: (row: Row) => boolean, label = 'predicate'): FilterOperator {
  return Object.freeze({
    kind: 'filter',
    inputs: [input],
    predicate,
    label,
    describe: () => `Filter(${label})`,
    [Symbol.asyncIterator]: () => filterRows(input, predicate),
  } as const);
}

async function* filterRows(input: AsyncIterable<Row>, predicate: (row: Row) => boolean): AsyncGenerator<Row> {
  for await (const row of input) {
    if (predicate(row)) yield row;
  }
}

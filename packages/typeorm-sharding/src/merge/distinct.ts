import { canonicalFullRowKey, canonicalRowKey, type GroupKey } from './canonical-key.js';
import type { MergeOperator, Row } from './row.js';

/** DISTINCT over the merged rows. */
export interface DistinctOperator extends MergeOperator {
  readonly kind: 'distinct';
  /** The columns that decide sameness; undefined for every column of the row, compared exactly. */
  readonly columns: readonly GroupKey[] | undefined;
}

/**
 * Drops rows equal to one already yielded (equality of {@link canonicalRowKey}); the
 * first of equal rows is kept and order is preserved, so it streams over a merge sort.
 * Memory is O(distinct rows).
 */
export function createDistinct(input: AsyncIterable<Row>, columns?: readonly GroupKey[]): DistinctOperator {
  const keyOf = columns === undefined ? canonicalFullRowKey : (row: Row) => canonicalRowKey(row, columns);
  return Object.freeze({
    kind: 'distinct',
    inputs: [input],
    columns,
    describe: () => (columns === undefined ? 'Distinct(all columns)' : `Distinct(${columns.map((c) => c.column).join(', ')})`),
    [Symbol.asyncIterator]: () => distinctRows(input, keyOf),
  } as const);
}

async function* distinctRows(input: AsyncIterable<Row>, keyOf: (row: Row) => string): AsyncGenerator<Row> {
  const seen = new Set<string>();
  for await (const row of input) {
    const key = keyOf(row);
    if (seen.has(key)) continue;
    seen.add(key);
    yield row;
  }
}

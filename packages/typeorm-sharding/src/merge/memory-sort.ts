import { createRowComparator, describeSortKeys, type SortKey } from './row-comparator.js';
import type { MergeOperator, Row } from './row.js';

/** ORDER BY applied in memory, for rows that only exist after the merge (groups). */
export interface MemorySortOperator extends MergeOperator {
  readonly kind: 'memory-sort';
  readonly keys: readonly SortKey[];
}

/**
 * Reads every row, sorts them by `keys` (stable: ties keep input order) and yields them.
 * Used after grouping, where ORDER BY may name aggregates that only the merge knows.
 */
export function createMemorySort(input: AsyncIterable<Row>, keys: readonly SortKey[]): MemorySortOperator {
  const compareRows = createRowComparator(keys);
  return Object.freeze({
    kind: 'memory-sort',
    inputs: [input],
    keys,
    describe: () => `MemorySort(${keys.length} ${keys.length === 1 ? 'key' : 'keys'}: ${describeSortKeys(keys)})`,
    [Symbol.asyncIterator]: () => sortRows(input, compareRows),
  } as const);
}

async function* sortRows(input: AsyncIterable<Row>, compareRows: (a: Row, b: Row) => number): AsyncGenerator<Row> {
  const rows: Row[] = [];
  for await (const row of input) rows.push(row);
  rows.sort(compareRows);
  yield* rows;
}

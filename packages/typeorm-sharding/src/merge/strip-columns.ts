import type { MergeOperator, Row } from './row.js';

/** Removes derived columns the plan added for the merge. */
export interface StripColumnsOperator extends MergeOperator {
  readonly kind: 'strip-columns';
  readonly columns: readonly string[];
}

/**
 * Yields each row without `columns` (derived sort keys `__sk<n>`, AVG parts, HAVING
 * inputs...), so TypeORM sees exactly the columns of the logical statement. Rows are
 * copied, never mutated: the input's rows may be shared.
 */
export function createStripColumns(input: AsyncIterable<Row>, columns: readonly string[]): StripColumnsOperator {
  const stripped = new Set(columns);
  return Object.freeze({
    kind: 'strip-columns',
    inputs: [input],
    columns,
    describe: () => `StripColumns(${columns.join(', ')})`,
    [Symbol.asyncIterator]: () => stripRows(input, stripped),
  } as const);
}

async function* stripRows(input: AsyncIterable<Row>, stripped: ReadonlySet<string>): AsyncGenerator<Row> {
  for await (const row of input) {
    const out: Row = {};
    for (const column in row) {
      if (!stripped.has(column)) out[column] = row[column];
    }
    yield out;
  }
}

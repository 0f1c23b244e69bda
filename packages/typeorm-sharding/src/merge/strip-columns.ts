import type { MergeOperator, Row } from './row.js';

/** Removes derived columns the plan added for the merge (and gives aliased items their own names back). */
export interface StripColumnsOperator extends MergeOperator {
  readonly kind: 'strip-columns';
  readonly columns: readonly string[];
}

/**
 * Yields each row without `columns` (derived sort keys `__sk<n>`, AVG parts, HAVING
 * inputs...), so TypeORM sees exactly the columns of the logical statement. Rows are
 * copied, never mutated: the input's rows may be shared.
 */
export function createStripColumns(
  input: AsyncIterable<Row>,
  columns: readonly string[],
  rename: readonly { readonly from: string; readonly to: string }[] = [],
  integersAsNumbers = false,
): StripColumnsOperator {
  const stripped = new Set(columns);
  const renamed = new Map(rename.map((r) => [r.from, r.to]));
  const renames = rename.length > 0 ? ` renaming ${rename.map((r) => `${r.from} → ${r.to}`).join(', ')}` : '';
  return Object.freeze({
    kind: 'strip-columns',
    inputs: [input],
    columns,
    describe: () => `StripColumns(${columns.join(', ')})${renames}`,
    [Symbol.asyncIterator]: () => stripRows(input, stripped, renamed, integersAsNumbers),
  } as const);
}

async function* stripRows(input: AsyncIterable<Row>, stripped: ReadonlySet<string>, renamed: ReadonlyMap<string, string>, integersAsNumbers: boolean): AsyncGenerator<Row> {
  for await (const row of input) {
    const out: Row = {};
    for (const column in row) {
      if (stripped.has(column)) continue;
      const value = row[column];
      out[renamed.get(column) ?? column] = integersAsNumbers && typeof value === 'bigint' ? Number(value) : value;
    }
    yield out;
  }
}

import type { ComputeSpec } from './merge-spec.js';
import type { MergeOperator, Row } from './row.js';

/** Computes select items from merged rows (`COALESCE(SUM(x), 0)`, `SUM(a) / COUNT(*)`). */
export interface ComputeOperator extends MergeOperator {
  readonly kind: 'compute';
  readonly columns: readonly ComputeSpec[];
}

/**
 * Writes each computed column of each row. The row's own value of the column (the shards'
 * partial result) is the hint of how the driver represents it; when a partial is NULL the
 * last non-NULL one of the same column stands in.
 */
export function createCompute(input: AsyncIterable<Row>, columns: readonly ComputeSpec[]): ComputeOperator {
  return Object.freeze({
    kind: 'compute',
    inputs: [input],
    columns,
    describe: () => `Compute(${columns.map((c) => `${c.column} = ${c.label}`).join(', ')})`,
    [Symbol.asyncIterator]: () => computeRows(input, columns),
  } as const);
}

async function* computeRows(input: AsyncIterable<Row>, columns: readonly ComputeSpec[]): AsyncGenerator<Row> {
  const hints: unknown[] = columns.map(() => null);
  for await (const row of input) {
    const out: Row = { ...row };
    columns.forEach((c, i) => {
      const partial = row[c.column];
      if (partial !== null && partial !== undefined) hints[i] = partial;
      out[c.column] = c.evaluate(out, hints[i]);
    });
    yield out;
  }
}

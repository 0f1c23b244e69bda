import { canonicalValueKey } from './canonical-key.js';
import { parseDecimal } from '../values/decimal.js';
import type { MergeOperator, Row } from './row.js';

/** Rows put in the order a WHERE listed their key values (see `plan/routing/mention-order.ts`). */
export interface ListedOrderOperator extends MergeOperator {
  readonly kind: 'listed-order';
  readonly columns: readonly string[];
}

/**
 * A value compared with a listed one: the driver returns a number where the statement gave
 * text (`'5'`) or a BIGINT as text where it gave a number, so numbers are compared by value.
 */
function sameValueKey(value: unknown): string {
  if (typeof value === 'string') {
    const parts = parseDecimal(value.trim());
    if (parts !== undefined) return `n${parts.negative ? '-' : ''}${parts.int || '0'}.${parts.frac}`;
  }
  if (typeof value === 'number' || typeof value === 'bigint') {
    const parts = parseDecimal(String(value));
    if (parts !== undefined) return `n${parts.negative ? '-' : ''}${parts.int || '0'}.${parts.frac}`;
  }
  return canonicalValueKey(value);
}

/**
 * Orders the rows by the position of their key values in `tuples` (rows matching none go
 * last, in arrival order). Reads every row first; used only for queries without ORDER BY.
 */
export function createListedOrder(input: AsyncIterable<Row>, columns: readonly string[], tuples: readonly (readonly unknown[])[]): ListedOrderOperator {
  return Object.freeze({
    kind: 'listed-order',
    inputs: [input],
    columns,
    describe: () => `ListedOrder(${columns.join(', ')})`,
    [Symbol.asyncIterator]: () => listedRows(input, columns, tuples),
  } as const);
}

async function* listedRows(input: AsyncIterable<Row>, columns: readonly string[], tuples: readonly (readonly unknown[])[]): AsyncGenerator<Row> {
  const tupleKey = (values: readonly unknown[]) => values.map(sameValueKey).join('\u0000');
  const position = new Map<string, number>();
  tuples.forEach((t, i) => {
    const key = tupleKey(t);
    if (!position.has(key)) position.set(key, i);
  });
  const rows: { row: Row; at: number }[] = [];
  for await (const row of input) rows.push({ row, at: position.get(tupleKey(columns.map((c) => row[c]))) ?? tuples.length });
  rows.sort((a, b) => a.at - b.at);
  for (const { row } of rows) yield row;
}

import { UnsupportedShardingError } from '../errors/index.js';
import { canonicalValueKey } from './canonical-key.js';
import { parseDecimal } from '../values/decimal.js';
import { showValue } from '../values/value-error.js';
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
 * Orders the rows by the position of their key values in `tuples`. Reads every row first; used
 * only for queries without ORDER BY. A row whose key matches no listed tuple here is refused:
 * the server found it equal to one (a case-insensitive or PAD SPACE collation, `'05'` for 5, a
 * date written in another form), but which one, and so where one database would put it, is not
 * known here, and TypeORM maps such rows back to its entities by position.
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
  for await (const row of input) {
    const values = columns.map((c) => row[c]);
    const at = position.get(tupleKey(values));
    if (at === undefined) throw unlisted(columns, values);
    rows.push({ row, at });
  }
  rows.sort((a, b) => a.at - b.at);
  for (const { row } of rows) yield row;
}

function unlisted(columns: readonly string[], values: readonly unknown[]): UnsupportedShardingError {
  const shown = columns.map((c, i) => `${c} = ${showValue(values[i])}`).join(', ');
  return new UnsupportedShardingError(
    `A statement that lists rows by their keys (\`(a = ? AND b = ?) OR …\`, as TypeORM re-reads saved rows) without ORDER BY returned a row (${shown}) equal to none of the listed values as given: the server compared them otherwise (a collation, a number written as text, another form of a date), so the order one database returns them in cannot be rebuilt. ` +
      'Add an ORDER BY, or pass the key values as they are stored.',
    { stage: 'merge' },
  );
}

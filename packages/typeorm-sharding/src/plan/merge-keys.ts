/**
 * Turns a column's {@link ColumnOrder} into what the merge compares for GROUP BY, DISTINCT
 * and MIN/MAX, adding the derived columns the order asks for. (ORDER BY uses the order
 * directly in `shape-of.ts`.)
 */
import type { GroupKey, MinOrMaxAggregate } from '../merge/index.js';
import type { ColumnOrder } from './column-order.js';

/** Selects `expression` as a derived column (once per expression) and returns its alias. */
export type Derive = (expression: string, kind: string) => string;

/** A group key, or why the statement cannot be merged. */
export type GroupKeyResult = { readonly key: GroupKey } | { readonly unmergeable: string };

/**
 * The key that decides whether two rows share a group (GROUP BY) or are the same row
 * (DISTINCT) in the column behind `text`: the database-computed key when the order has
 * one, else the result column `alias` (selecting the expression when the select list lacks it).
 */
export function groupKeyOf(order: ColumnOrder, alias: string | undefined, text: string | undefined, derive: Derive): GroupKeyResult {
  if (order.kind === 'refused') return { unmergeable: order.reason };
  const { key, collation } = order.order;
  if (key !== undefined && text !== undefined) return { key: { column: derive(key(text), 'key'), collation } };
  if (alias !== undefined) return { key: { column: alias, collation } };
  if (text !== undefined) return { key: { column: derive(text, 'group'), collation } };
  return { unmergeable: 'GROUP BY an expression that is not in the select list' };
}

/** `fn(arg) AS alias` as the merge combines it, or why it cannot. */
export function extremeOf(
  fn: 'MIN' | 'MAX',
  alias: string,
  order: ColumnOrder,
  argText: string | undefined,
  derive: Derive,
): MinOrMaxAggregate | { readonly unmergeable: string } {
  if (order.kind === 'refused') return { unmergeable: order.reason };
  const { type, collation, key } = order.extreme;
  if (key === undefined) return { alias, fn, type, collation };
  if (argText === undefined) return { unmergeable: `${fn}() of an expression the merge cannot compare` };
  return { alias, fn, type, collation, keyColumn: derive(key(fn, argText), 'extreme') };
}

/** One item of a SELECT DISTINCT list: its result column name, its order, its SQL text. */
export interface DistinctItem {
  readonly name: string | undefined;
  readonly order: ColumnOrder;
  readonly text: string | undefined;
}

/**
 * What makes two rows of a SELECT DISTINCT the same: each item's group key. Undefined when
 * an item has no name the merge could read (every column is then compared exactly).
 */
export function distinctKeysOf(items: readonly DistinctItem[], derive: Derive): { readonly keys: GroupKey[] } | { readonly unmergeable: string } | undefined {
  if (items.some((item) => item.name === undefined)) return undefined;
  const keys: GroupKey[] = [];
  for (const item of items) {
    const group = groupKeyOf(item.order, item.name, item.text, derive);
    if ('unmergeable' in group) return group;
    keys.push(group.key);
  }
  return { keys };
}

import type { Collation } from '../values/collation.js';
import { createValueComparator, isSqlNull, type SortKeyType } from '../values/compare-values.js';
import { invalidMergeSpec } from './merge-error.js';
import type { Row } from './row.js';

/** One ORDER BY item as the merge sees it: a result column and how to order its values. */
export interface SortKey {
  /** Result column alias holding the value (a selected column or a derived `__sk<n>`). */
  readonly column: string;
  readonly direction: 'ASC' | 'DESC';
  /** How the database orders the column's values. */
  readonly type: SortKeyType;
  /** Collation of text values. @default 'binary' */
  readonly collation?: Collation;
  /** `NULLS FIRST` / `NULLS LAST`. @default NULL is the smallest value: first ascending, last descending */
  readonly nulls?: 'first' | 'last';
}

/** Orders two rows: negative, zero or positive like `a - b`. */
export type RowComparator = (a: Row, b: Row) => number;

interface CompiledKey {
  readonly column: string;
  readonly sign: 1 | -1;
  readonly compare: (a: unknown, b: unknown) => number;
  /** -1: NULLs first, 1: NULLs last, whatever the direction; 0: by the comparator (NULL smallest). */
  readonly nulls: -1 | 0 | 1;
}

/**
 * Builds the comparator of an ORDER BY list: keys compared in turn, DESC reversing the
 * order (so NULLs, the smallest values, come last). Zero means the rows tie on every key.
 * A row lacking a key column throws: the plan forgot to select it.
 */
export function createRowComparator(keys: readonly SortKey[]): RowComparator {
  const compiled: readonly CompiledKey[] = keys.map((key) => ({
    column: key.column,
    sign: key.direction === 'DESC' ? -1 : 1,
    compare: createValueComparator(key.type, key.collation),
    nulls: key.nulls === 'first' ? -1 : key.nulls === 'last' ? 1 : 0,
  }));
  return (a, b) => {
    for (const key of compiled) {
      const x = valueOf(a, key.column);
      const y = valueOf(b, key.column);
      if (key.nulls !== 0) {
        const xNull = isSqlNull(x);
        const yNull = isSqlNull(y);
        if (xNull !== yNull) return xNull ? key.nulls : -key.nulls;
        if (xNull) continue;
      }
      const order = key.compare(x, y);
      if (order !== 0) return order * key.sign;
    }
    return 0;
  };
}

function valueOf(row: Row, column: string): unknown {
  const value = row[column];
  if (value === undefined && !(column in row)) throw invalidMergeSpec(`sort column ${JSON.stringify(column)} is not in the row`);
  return value;
}

/** `create_time DESC, id ASC` form of a key list for `describe()`. */
export function describeSortKeys(keys: readonly SortKey[]): string {
  return keys.map((key) => `${key.column} ${key.direction}`).join(', ');
}

import type { Collation, SortKeyType } from '../merge/index.js';
import type { SqlDialect } from '../parameterize/index.js';
import type { ExprType } from './expression-type.js';
import { typeFamily } from './resolve-column.js';

/** How the merge orders (and groups) the values of an expression. */
export type OrderingOf =
  /** Compare the values themselves. */
  | { readonly kind: 'values'; readonly type: SortKeyType; readonly collation: Collation }
  /** Compare `WEIGHT_STRING(expr)`, the server's own sort weights, byte-wise (MySQL text). */
  | { readonly kind: 'weight' }
  /** A constant (NULL): it orders nothing. */
  | { readonly kind: 'constant' }
  | { readonly kind: 'unsupported'; readonly problem: string };

const values = (type: SortKeyType, collation: Collation = 'binary'): OrderingOf => ({ kind: 'values', type, collation });

/**
 * The ordering the database applies to values of `type`. MySQL text is ordered by its
 * collation, which only the server knows exactly: the merge sorts by `WEIGHT_STRING`.
 * SQLite orders by storage class, numbers numerically and text by code point, whatever the
 * expression (`auto`), unless a column declares a collation.
 */
export function orderingOf(type: ExprType, dialect: SqlDialect, what: string): OrderingOf {
  switch (type.kind) {
    case 'null':
      return { kind: 'constant' };
    case 'dynamic':
      return values('auto');
    case 'number':
      return values('numeric');
    case 'temporal':
      return values('date');
    case 'text':
      return dialect === 'mysql' ? { kind: 'weight' } : values('auto');
    case 'column': {
      const family = typeFamily(type.column, dialect);
      if (family.type === 'string') return dialect === 'mysql' ? { kind: 'weight' } : values('auto', family.ci ? 'case-insensitive' : 'binary');
      return values(family.type);
    }
    case 'unknown':
      return {
        kind: 'unsupported',
        problem: `cannot tell how the server orders ${what} (write it as CAST(… AS SIGNED / DECIMAL / CHAR) so its type is known)`,
      };
  }
}

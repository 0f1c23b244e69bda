import type { SqlDialect } from '../../parameterize/index.js';
import { columnOrderOf, mysqlWeightKey, NUMERIC_ORDER, UNTYPED_ORDER, type ExactColumnOrder, type RefusedColumnOrder } from './column-order.js';
import type { ExprType } from './expression-type.js';

/** How the merge orders, groups and takes MIN/MAX of an expression's values. */
export type OrderingOf = ExactColumnOrder | RefusedColumnOrder | { readonly kind: 'constant' };

/** MySQL text that is no column: the server's weights (pad-aware), whatever the collation. */
const MYSQL_TEXT: ExactColumnOrder = {
  kind: 'exact',
  order: { type: 'mysql-weight', collation: 'binary', key: mysqlWeightKey },
  extreme: { type: 'mysql-weight', collation: 'binary', key: (fn, c) => mysqlWeightKey(`${fn}(${c})`) },
  rule: 'text: the server\'s collation weights',
};

/** MySQL dates and times that are no column: `expr + 0`, the server's own number (JavaScript Dates lose microseconds). */
const MYSQL_TEMPORAL: ExactColumnOrder = {
  kind: 'exact',
  order: { type: 'numeric', collation: 'binary', key: (c) => `(${c} + 0)` },
  extreme: { type: 'numeric', collation: 'binary', key: (fn, c) => `${fn}((${c}) + 0)` },
  rule: 'DATE/DATETIME/TIME: `expr + 0`',
};

/**
 * A computed DOUBLE that is no column (`price - ratio`): the server prints it with fewer digits
 * than it compares with once it went through a temporary table (a GROUP BY, DISTINCT), so two
 * values it keeps apart can reach the client as one. Its exact decimal expansion is the key:
 * exact for magnitudes from 1e-30 to 1e35 (beyond them DECIMAL(65, 30) cannot hold the value).
 */
const MYSQL_COMPUTED_DOUBLE: ExactColumnOrder = {
  kind: 'exact',
  order: { type: 'numeric', collation: 'binary', key: (c) => `CAST(${c} AS DECIMAL(65, 30))` },
  extreme: NUMERIC_ORDER.extreme,
  rule: 'computed DOUBLE: `CAST(expr AS DECIMAL(65, 30))`',
};

/**
 * The ordering the database applies to values of `type`. A table column's comes from its
 * metadata (`column-order.ts`: every column type, by the server's own keys where needed);
 * an expression's from its SQL type. SQLite orders by storage class whatever the expression
 * (`auto`). What cannot be ordered exactly is refused, never approximated.
 */
export function orderingOf(type: ExprType, dialect: SqlDialect, what: string): OrderingOf {
  if (type.kind === 'null') return { kind: 'constant' };
  if ('column' in type && type.column !== undefined) return columnOrderOf(type.column, dialect);
  if (dialect === 'sqlite') return UNTYPED_ORDER;
  switch (type.kind) {
    case 'number':
      return type.class === 'real' && type.inexact !== true ? MYSQL_COMPUTED_DOUBLE : NUMERIC_ORDER;
    case 'text':
      return MYSQL_TEXT;
    case 'temporal':
      return MYSQL_TEMPORAL;
    default:
      return {
        kind: 'refused',
        reason: `cannot tell how the server orders ${what} (write it as CAST(… AS SIGNED / DECIMAL / CHAR) so its type is known)`,
      };
  }
}

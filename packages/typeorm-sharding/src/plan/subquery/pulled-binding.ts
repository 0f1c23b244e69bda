/**
 * How the values of a subquery that is run first are written back into its statement so
 * that the statement compares and returns them exactly as it would have compared and
 * returned the subquery's own values. A value written as a literal or a parameter is typed
 * differently from a column: where that difference can change an answer, the statement is
 * refused here, with the reason, instead of being answered differently.
 *
 * - MySQL/MariaDB: each value is written with the type of the subquery's item: integers and
 *   decimals as exact literals, doubles as `…e…` literals, dates and times as
 *   `CAST(? AS DATETIME(n))`, strings as parameters. The comparison is refused when the
 *   compared expression has another type class (a string column against numbers compares as
 *   doubles with a column, exactly with a literal) or an unknown one (a parameter takes its
 *   collation from the subquery's column, not from a literal).
 * - SQLite: values keep their storage class (INTEGER, REAL, TEXT, BLOB). A list of values
 *   has no type affinity where a subquery's column has one, so the comparison is refused
 *   when affinity would convert differently (checked against SQLite in the tests).
 */
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import type { SqlDialect } from '../../parameterize/index.js';
import type { ShardingRules } from '../../rules/index.js';
import { columnFactsOf } from '../typing/column-order.js';
import { ExpressionTyper, type ExprType } from '../typing/expression-type.js';
import { resolveColumn } from '../nodes/resolve-column.js';
import type { SelectNode, SqlNode } from '../nodes/sql-node.js';

/** How the values of a subquery are written back into its statement. */
export type ValueBinding =
  /** SQLite: INTEGER as an integer literal, REAL, TEXT and BLOB as parameters, NULL as NULL. */
  | { readonly dialect: 'sqlite' }
  /**
   * MySQL/MariaDB: as `type` says. `keepType`: the value is returned or computed with (a select
   * item, arithmetic), so the driver must see the same column type as for the subquery's item.
   */
  | {
      readonly dialect: 'mysql';
      readonly type: MysqlValueType;
      readonly keepType: boolean;
      /**
       * Value slots the numbers are compared with (`(SELECT COUNT(*) …) > ?`): a number there
       * compares with a literal as with the column; a string would not (checked per statement).
       */
      readonly numericSlots: readonly number[];
    };

/** The MySQL type of a subquery's item, as far as writing its values back needs it. */
export type MysqlValueType =
  /** `width`: `bigint` (BIGINT, COUNT: mysql2 returns strings), `int` (narrower integers: numbers), or unknown. */
  | { readonly kind: 'integer'; readonly width: 'bigint' | 'int' | 'unknown' }
  | { readonly kind: 'decimal' }
  | { readonly kind: 'double' }
  /** Text and binary strings (also ENUM/SET labels, MariaDB UUID/INET text): parameters. */
  | { readonly kind: 'string' }
  /** Written `CAST(? AS cast)`; `fraction`: digits of seconds kept (a JS Date keeps 3). */
  | { readonly kind: 'temporal'; readonly cast: string; readonly fraction: number }
  | { readonly kind: 'null' };

/** Where and how the subquery's value is used, as the binding needs it. */
export interface ValueUse {
  /** The subquery's only select item, and the subquery. */
  readonly item: SqlNode;
  readonly query: SelectNode;
  /** What the value is compared with (see `SubquerySite.partners`); undefined: used as a value. */
  readonly partners: readonly SqlNode[] | undefined;
  /** The select whose FROM the partners' columns belong to. */
  readonly scope: SelectNode;
  /** A scalar subquery written as an item of an IN list: no affinity on SQLite. */
  readonly inListItem: boolean;
  /** The whole value of `SET col = (SELECT …)`: converted to the column's type when stored. */
  readonly stored: boolean;
}

/** The binding of one subquery's values, or the reason they cannot be written back exactly. */
export function valueBindingOf(use: ValueUse, rules: ShardingRules, dialect: SqlDialect): ValueBinding | string {
  if (dialect === 'sqlite') {
    const problem = sqliteProblem(use, rules);
    return problem ?? { dialect: 'sqlite' };
  }
  const type = mysqlTypeOf(use.item, use.query, rules);
  if (typeof type === 'string') return type;
  const numericSlots: number[] = [];
  if (use.partners !== undefined) {
    const typer = new ExpressionTyper(use.scope, rules, 'mysql');
    for (const partner of use.partners.length > 0 ? use.partners : [undefined]) {
      const numeric = type.kind === 'integer' || type.kind === 'decimal' || type.kind === 'double';
      if (numeric && partner?.kind === 'slot') {
        numericSlots.push(partner.slot);
        continue;
      }
      const problem = mysqlComparisonProblem(type, partner === undefined ? 'unknown' : classOf(typer.typeOf(partner)));
      if (problem) return problem;
    }
  }
  const keepType = use.partners === undefined && !use.stored;
  if (keepType && type.kind === 'integer' && type.width === 'unknown') {
    return 'its integer type (INT or BIGINT) is not known, and the driver returns the two differently; select a column, or CAST it AS DECIMAL';
  }
  return { dialect: 'mysql', type, keepType, numericSlots };
}

// --- MySQL ------------------------------------------------------------------------------

const NARROW_INTEGERS = new Set(['tinyint', 'smallint', 'mediumint', 'int', 'integer', 'year', 'bool', 'boolean']);
const DECIMALS = new Set(['decimal', 'dec', 'numeric', 'fixed']);
const DOUBLES = new Set(['double', 'double precision', 'real']);
const STRINGS = new Set([
  'char', 'nchar', 'national char', 'varchar', 'nvarchar', 'national varchar', 'tinytext', 'text', 'mediumtext', 'longtext', 'simple-array', 'simple-json',
  'enum', 'simple-enum', 'set', 'binary', 'varbinary', 'tinyblob', 'blob', 'mediumblob', 'longblob', 'uuid', 'inet4', 'inet6',
]);

/** The MySQL type of a column, or why its values cannot be written back exactly. */
function columnType(column: ColumnMetadata): MysqlValueType | string {
  const type = columnFactsOf(column, 'mysql').type;
  const fraction = typeof column.precision === 'number' ? column.precision : 0;
  if (type === 'bigint') return { kind: 'integer', width: 'bigint' };
  if (NARROW_INTEGERS.has(type)) return { kind: 'integer', width: 'int' };
  if (DECIMALS.has(type)) return { kind: 'decimal' };
  if (DOUBLES.has(type)) return { kind: 'double' };
  if (STRINGS.has(type)) return { kind: 'string' };
  if (type === 'date') return { kind: 'temporal', cast: 'DATE', fraction: 0 };
  if (type === 'datetime' || type === 'timestamp') return { kind: 'temporal', cast: `DATETIME(${fraction})`, fraction };
  if (type === 'time') return { kind: 'temporal', cast: `TIME(${fraction})`, fraction };
  if (type === 'float') return `column "${column.propertyName}" is a FLOAT, which the server prints with 6 digits: its values cannot be written back exactly; select \`${column.databaseName} + 0e0\` (a DOUBLE) instead`;
  return `column "${column.propertyName}" has type ${type}, whose values cannot be written back into the statement exactly`;
}

/** The MySQL type of a subquery's select item. */
function mysqlTypeOf(item: SqlNode, select: SelectNode, rules: ShardingRules): MysqlValueType | string {
  switch (item.kind) {
    case 'column': {
      const column = resolveColumn(item, select, rules);
      if (column) return columnType(column);
      break;
    }
    case 'literal':
      if (item.value === null) return { kind: 'null' };
      break;
    case 'aggregate':
      if (item.name === 'COUNT' || item.name.startsWith('BIT_')) return { kind: 'integer', width: 'bigint' };
      if ((item.name === 'MIN' || item.name === 'MAX') && item.args[0]) return mysqlTypeOf(item.args[0], select, rules);
      break;
    case 'cast': {
      const base = item.target.replace(/\(.*$/, '').trim();
      const fraction = /\((\d+)\)/.exec(item.target)?.[1];
      if (base === 'DATE') return { kind: 'temporal', cast: 'DATE', fraction: 0 };
      if (base === 'DATETIME' || base === 'TIME') return { kind: 'temporal', cast: `${base}(${fraction ?? 0})`, fraction: Number(fraction ?? 0) };
      if (/^(BINARY|CHAR|NCHAR|VARCHAR)$/.test(base)) return { kind: 'string' };
      break;
    }
    default:
      break;
  }
  const type = new ExpressionTyper(select, rules, 'mysql').typeOf(item);
  switch (type.kind) {
    case 'number':
      if (type.inexact) break;
      return type.class === 'int' ? { kind: 'integer', width: 'unknown' } : type.class === 'decimal' ? { kind: 'decimal' } : { kind: 'double' };
    case 'text':
      return { kind: 'string' };
    case 'null':
      return { kind: 'null' };
    case 'temporal':
      return 'its date/time type and precision are not known; select a column, or CAST it AS DATE / DATETIME(n) / TIME(n)';
    default:
      break;
  }
  return 'its type is not known; select a column, or CAST the expression to a type';
}

type TypeClass = 'number' | 'string' | 'temporal' | 'null' | 'unknown';

function classOf(type: ExprType): TypeClass {
  switch (type.kind) {
    case 'number':
      return 'number';
    case 'text':
      return 'string';
    case 'temporal':
      return 'temporal';
    case 'null':
      return 'null';
    case 'column': {
      const name = columnFactsOf(type.column, 'mysql').type;
      if (STRINGS.has(name)) return 'string';
      if (name === 'time') return 'temporal';
      return 'unknown';
    }
    default:
      return 'unknown';
  }
}

/**
 * Why comparing values of `value` type (written as literals) with an expression of class
 * `partner` could answer differently than comparing them with the subquery's own values.
 */
function mysqlComparisonProblem(value: MysqlValueType, partner: TypeClass): string | undefined {
  // NULL compares as NULL whatever its type; CAST(? AS DATETIME) is typed like the column.
  if (value.kind === 'null' || value.kind === 'temporal' || partner === 'null') return undefined;
  if (value.kind === 'string') {
    if (partner === 'string' || partner === 'temporal') return undefined;
    return partner === 'unknown'
      ? 'it compares strings with an expression of unknown type (a parameter): the comparison would take its collation from the literal values instead of from the subquery\'s column; compare a column with it'
      : 'it compares strings with a number: the server compares two columns of those types as doubles, a column with a literal exactly; CAST one side so that both have one type';
  }
  if (partner === 'number') return undefined;
  return partner === 'unknown'
    ? 'it compares numbers with an expression of unknown type (a parameter): the server compares a string parameter with a literal number as doubles, with a column exactly; compare a column with it, or CAST the expression'
    : `it compares numbers with a ${partner === 'string' ? 'string' : 'date/time'} expression, which the server converts differently for a literal than for a column; CAST one side so that both have one type`;
}

// --- SQLite -----------------------------------------------------------------------------

/** SQLite type affinity: N numeric (INTEGER, REAL, NUMERIC), T text, B blob (a column without type), X none (any expression). */
export type Affinity = 'N' | 'T' | 'B' | 'X';

function affinityOfType(declared: string): Affinity {
  const t = declared.toUpperCase();
  if (t.includes('INT')) return 'N';
  if (t.includes('CHAR') || t.includes('CLOB') || t.includes('TEXT')) return 'T';
  if (t.includes('BLOB') || t.trim() === '') return 'B';
  return 'N';
}

/** The affinity of an expression (undefined: a column whose type is not known). */
function affinityOf(node: SqlNode, scope: SelectNode, rules: ShardingRules): Affinity | undefined {
  if (node.kind === 'column') {
    const column = resolveColumn(node, scope, rules);
    return column ? affinityOfType(columnFactsOf(column, 'sqlite').type) : undefined;
  }
  if (node.kind === 'cast') return affinityOfType(node.target.replace(/\(.*$/, ''));
  // Literals, parameters, functions, aggregates (MIN/MAX too), arithmetic and `+col` have none.
  return 'X';
}

/**
 * True when `lhs op (values of a column of affinity a)` and `lhs op (the same values without
 * affinity)` convert their operands alike (SQLite's comparison affinity rules; verified
 * exhaustively against SQLite in `test/subquery-affinity.test.ts`).
 */
export function sqliteAffinitiesAgree(lhs: Affinity, a: Affinity): boolean {
  return a === 'X' || lhs === 'N' || (a === 'T' && (lhs === 'T' || lhs === 'B')) || (a === 'B' && (lhs === 'B' || lhs === 'X'));
}

function sqliteProblem(use: ValueUse, rules: ShardingRules): string | undefined {
  // Values in an IN list have no affinity, whatever wrote them; a value not compared has none to lose.
  if (use.partners === undefined || use.inListItem) return undefined;
  const a = affinityOf(use.item, use.query, rules);
  const itemColumn = use.item.kind === 'column' ? resolveColumn(use.item, use.query, rules) : undefined;
  const collation = itemColumn?.collation?.toUpperCase();
  for (const partner of use.partners.length > 0 ? use.partners : [undefined]) {
    const lhs = partner === undefined ? undefined : partner.kind === 'in-list' || partner.kind === 'slot' || partner.kind === 'literal' ? 'X' : affinityOf(partner, use.scope, rules);
    const agree = a === undefined ? lhs === 'N' : lhs === undefined ? a === 'X' : sqliteAffinitiesAgree(lhs, a);
    if (!agree) {
      return 'SQLite converts a compared value by the type affinity of the subquery\'s column, which a list of values does not have; compare expressions of one affinity (e.g. an INTEGER column with an INTEGER column, or CAST one side)';
    }
    // Without a column on the other side, SQLite compares by the subquery column's collation.
    if (collation !== undefined && collation !== 'BINARY' && partner?.kind !== 'column') {
      return `the subquery's column compares under collation ${collation}, which its values written as parameters would lose; compare a column with it`;
    }
  }
  return undefined;
}

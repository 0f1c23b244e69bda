/**
 * The columns of a compound SELECT: what each branch's select item holds (planned once per
 * shape), and, per statement, whether the branches agree on it and how its values compare.
 *
 * One database converts every branch of a compound to one common type per column (MariaDB:
 * `INT UNION BIGINT` comes back as BIGINT strings, `INT UNION DECIMAL(10,2)` as `'7.00'`), and
 * compares values under that type's rules (`'a'` = `'A'` under a `_ci` collation). Branches
 * run apart can only reproduce that when they already agree: on MySQL every branch must hold the
 * same family of type (NULL adapts to any), or the compound is refused naming the CAST that
 * makes them agree. SQLite keeps each value's own type; it compares text under the collation
 * of the left-most SELECT whose column has one.
 */
import { UnsupportedShardingError } from '../../errors/index.js';
import type { Collation } from '../../values/collation.js';
import type { SortKeyType } from '../../values/compare-values.js';
import type { ParameterizedSql, SqlDialect } from '../../parameterize/index.js';
import type { ShardingRules } from '../../rules/index.js';
import { columnFactsOf, mysqlWeightKey } from '../typing/column-order.js';
import type { BranchColumn, ColumnType, CompoundPlan } from './compound-plan.js';
import { resolveColumn } from '../nodes/resolve-column.js';
import type { SelectNode, SqlNode } from '../nodes/sql-node.js';
import { containsAggregate, forEachNode } from '../nodes/sql-tree.js';

const UNKNOWN: ColumnType = { family: 'unknown', collation: undefined, aggregate: false };
/** A value written into the statement inside an expression: no family of its own, and no collation a column's would not override. */
const COERCIBLE: ColumnType = { family: 'value', collation: undefined, aggregate: false };

/** What `item` of `select` holds; `slotOf` maps a slot of the branch to the compound statement's. */
export function branchColumnOf(expr: SqlNode, select: SelectNode, rules: ShardingRules, dialect: SqlDialect, slotOf: (slot: number) => number | undefined): BranchColumn {
  if (expr.kind === 'literal' && expr.value === null) return { kind: 'null' };
  if (dialect === 'sqlite') return { kind: 'typed', type: { family: '', collation: sqliteCollationOf(expr, select, rules), aggregate: containsAggregate(expr) } };
  if (expr.kind === 'slot') {
    const slot = slotOf(expr.slot);
    return slot === undefined ? { kind: 'typed', type: UNKNOWN } : { kind: 'slot', slot };
  }
  return { kind: 'typed', type: { ...mysqlTypeOf(expr, select, rules), aggregate: containsAggregate(expr) } };
}

// --- MySQL / MariaDB ---------------------------------------------------------------------

const SMALL_INTS = new Set(['tinyint', 'smallint', 'mediumint', 'int', 'integer', 'bool', 'boolean']);
const DECIMALS = new Set(['decimal', 'dec', 'numeric', 'fixed']);
const DOUBLES = new Set(['double', 'double precision', 'real']);
const TEXTS = new Set([
  'char', 'nchar', 'national char', 'varchar', 'nvarchar', 'national varchar', 'tinytext', 'text', 'mediumtext', 'longtext',
  'simple-array', 'simple-json', 'enum', 'simple-enum', 'set',
]);
const BYTES = new Set(['binary', 'varbinary', 'tinyblob', 'blob', 'mediumblob', 'longblob']);

type Typed = Omit<ColumnType, 'aggregate'>;

function family(name: string, collation?: string): Typed {
  return { family: name, collation };
}

/** The family of a table column's values as mysql2 returns them (TypeORM's options). */
function columnFamily(column: Parameters<typeof columnFactsOf>[0]): Typed {
  const type = columnFactsOf(column, 'mysql').type;
  const unsigned = column.unsigned ? ' unsigned' : '';
  // MySQL's UNION turns ENUM and SET into VARCHAR: they compare as text there, not by position.
  if (TEXTS.has(type)) return family('text', column.collation ?? (column.charset ? `charset ${column.charset}` : 'default'));
  if (SMALL_INTS.has(type)) return family(`int${unsigned}`);
  if (type === 'bigint') return family(`bigint${unsigned}`);
  if (DECIMALS.has(type)) return family(`decimal(${column.scale ?? 0})`);
  if (DOUBLES.has(type)) return family('double');
  if (type === 'float' || type === 'year' || type === 'date' || type === 'bit' || type === 'uuid' || type === 'inet4' || type === 'inet6') return family(type);
  if (type === 'datetime' || type === 'timestamp' || type === 'time') return family(`${type}(${column.precision ?? 0})`);
  if (BYTES.has(type)) return family('bytes');
  // MariaDB's JSON is LONGTEXT utf8mb4_bin.
  if (type === 'json' && columnFactsOf(column, 'mysql').engine === 'mariadb') return family('text', 'utf8mb4_bin');
  return family(`unknown ${type}`);
}

function mysqlTypeOf(expr: SqlNode, select: SelectNode, rules: ShardingRules): Typed {
  switch (expr.kind) {
    case 'literal':
      return typeof expr.value === 'boolean' ? family('int') : typeof expr.value === 'string' ? family('text', 'connection') : UNKNOWN;
    case 'slot':
      // A value (a `?` or a literal): coercible, as the connection's text or a number.
      return COERCIBLE;
    case 'column': {
      const column = resolveColumn(expr, select, rules);
      const typed = column ? columnFamily(column) : family(`unknown: column "${expr.column}" is no column of an entity`);
      return expr.collate && typed.family === 'text' ? family('text', expr.collate.toLowerCase()) : typed;
    }
    case 'cast':
      return castFamily(expr.target, expr.scale);
    case 'function':
      return TEXT_FUNCTIONS.has(expr.name) ? family('text', derivedCollation(expr.args.map((a) => mysqlTypeOf(a, select, rules)))) : UNKNOWN;
    case 'aggregate': {
      const arg = expr.args[0] && expr.args[0].kind !== 'star' ? mysqlTypeOf(expr.args[0], select, rules) : UNKNOWN;
      const numeric = /^(int|bigint)/.test(arg.family) ? 0 : /^decimal\((\d+)\)$/.exec(arg.family) ? Number(/\d+/.exec(arg.family)![0]) : undefined;
      switch (expr.name) {
        case 'COUNT':
          return family('bigint');
        case 'MIN':
        case 'MAX':
          return arg;
        case 'SUM':
          return arg.family === 'double' || arg.family === 'float' ? family('double') : numeric === undefined ? UNKNOWN : family(`decimal(${numeric})`);
        case 'AVG':
          return arg.family === 'double' || arg.family === 'float' ? family('double') : numeric === undefined ? UNKNOWN : family(`decimal(${numeric + 4})`);
        default:
          return UNKNOWN;
      }
    }
    default:
      return UNKNOWN;
  }
}

/** Functions whose result is text, under the collation their text arguments bring (see `derivedCollation`). */
const TEXT_FUNCTIONS = new Set(['CONCAT', 'CONCAT_WS', 'LOWER', 'LCASE', 'UPPER', 'UCASE', 'TRIM', 'LTRIM', 'RTRIM', 'SUBSTRING', 'SUBSTR', 'MID', 'LEFT', 'RIGHT', 'REPLACE', 'LPAD', 'RPAD', 'REVERSE', 'REPEAT']);

/**
 * The collation of a text function's result (MySQL's coercibility): a column's collation wins
 * over literals' (the connection's); columns of different collations, or text of unknown
 * collation, leave it unknown.
 */
function derivedCollation(args: readonly Typed[]): string | undefined {
  // An argument of unknown type (a CASE, a function the planner does not type) may be text of any
  // collation; a value written into the statement is coercible and yields to a column's.
  if (args.some((a) => a.family.startsWith('unknown'))) return undefined;
  const texts = args.filter((a) => a.family === 'text');
  if (texts.some((a) => a.collation === undefined)) return undefined;
  const columns = new Set(texts.map((a) => a.collation).filter((c) => c !== 'connection'));
  return columns.size === 0 ? 'connection' : columns.size === 1 ? [...columns][0] : undefined;
}

function castFamily(target: string, scale: number | undefined): Typed {
  const base = target.replace(/\(.*$/, '').trim();
  if (/^(CHAR|NCHAR|VARCHAR)$/.test(base)) return family('text', 'connection');
  if (/^(SIGNED|INT|INTEGER|SIGNED INTEGER)$/.test(base)) return family('bigint');
  if (/^(UNSIGNED|UNSIGNED INTEGER)$/.test(base)) return family('bigint unsigned');
  if (/^(DECIMAL|DEC|NUMERIC)$/.test(base)) return family(`decimal(${scale ?? 0})`);
  if (/^(DOUBLE|REAL)$/.test(base)) return family('double');
  if (base === 'DATE') return family('date');
  if (/^(DATETIME|TIME)$/.test(base)) return family(`${base.toLowerCase()}(${/\((\d+)\)/.exec(target)?.[1] ?? 0})`);
  return UNKNOWN;
}

/**
 * The family of a value written into the statement (a literal or a `?`, which mysql2 writes
 * into the text): MariaDB types an integer literal of up to 9 characters (sign included) as
 * INT, longer ones as BIGINT; `1.50` is DECIMAL(…, 2); strings and dates are text.
 */
function valueFamily(value: unknown): Typed | 'null' {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string' || value instanceof Date) return family('text', 'connection');
  if (typeof value === 'boolean') return family('int');
  if (typeof value !== 'number' && typeof value !== 'bigint') return UNKNOWN;
  const text = String(value);
  if (/^-?\d+$/.test(text)) return text.length <= 9 ? family('int') : text.length <= 18 ? family('bigint') : UNKNOWN;
  const decimal = /^-?\d*\.(\d+)$/.exec(text);
  if (decimal) return family(`decimal(${decimal[1]!.length})`);
  return /^-?[\d.]+e[-+]?\d+$/i.test(text) ? family('double') : UNKNOWN;
}

/** The family of a value slot in this statement. */
function slotFamily(p: ParameterizedSql, slot: number): Typed | 'null' {
  const s = p.slots[slot];
  if (!s) return UNKNOWN;
  // A numeric literal's value is its digit string.
  return s.isNumericLiteral ? valueFamily(/[.e]/i.test(String(s.value)) ? Number(s.value) : BigInt(String(s.value))) : valueFamily(s.value);
}

// --- SQLite ------------------------------------------------------------------------------

/** The collation SQLite gives an item of a compound: a column's, an explicit COLLATE, or none (undefined). */
function sqliteCollationOf(expr: SqlNode, select: SelectNode, rules: ShardingRules): string | undefined {
  switch (expr.kind) {
    case 'column': {
      if (expr.collate) return expr.collate.toUpperCase();
      const column = resolveColumn(expr, select, rules);
      return column ? (column.collation ?? 'BINARY').toUpperCase() : 'unknown';
    }
    case 'cast':
      return sqliteCollationOf(expr.operand, select, rules);
    case 'unary':
      return expr.op === '+' ? sqliteCollationOf(expr.operand, select, rules) : noCollation(expr);
    default:
      return noCollation(expr);
  }
}

/** Expressions carry no collation unless a COLLATE is written inside them (then the planner cannot tell which). */
function noCollation(expr: SqlNode): string | undefined {
  let collated = false;
  forEachNode(expr, (n) => {
    if (n.kind === 'column' && n.collate) collated = true;
  });
  return collated ? 'unknown' : undefined;
}

const SQLITE_COLLATIONS: Readonly<Record<string, Collation>> = { BINARY: 'binary', NOCASE: 'nocase', RTRIM: 'rtrim' };

// --- per statement -----------------------------------------------------------------------

/** How the values of one result column compare, for duplicate removal and ORDER BY. */
export interface ColumnComparison {
  readonly type: SortKeyType;
  /**
   * MySQL: the key each branch selects next to the column, as SQL of the column's expression;
   * the merge compares keys instead of values (text weights under the collation, exact
   * dates). Undefined: the values themselves are compared.
   */
  readonly key: ((expression: string) => string) | undefined;
  /**
   * Collation of text values at each branch (SQLite; undefined where the branch brings none):
   * an operator compares under the first one of the branches it has combined so far.
   */
  readonly collations: readonly (Collation | undefined)[];
}

/** A result column of one statement: how it compares, or why it cannot be compared exactly. */
export interface ResolvedColumn {
  readonly comparison: ColumnComparison | undefined;
  readonly problem: string | undefined;
  /** Per branch: the item holds an aggregate. */
  readonly aggregates: readonly boolean[];
}

const NUMERIC = /^(int|bigint|decimal|double|year)/;

/**
 * The result columns of the compound statement `p`: checks that every branch agrees on each
 * column's type (MySQL) and says how its values compare.
 *
 * @throws UnsupportedShardingError when branches hold different families of type (MySQL).
 */
export function resolveCompoundColumns(plan: CompoundPlan, p: ParameterizedSql, dialect: SqlDialect): ResolvedColumn[] {
  return plan.names.map((_, i) => {
    const columns = plan.branches.map((b) => b.columns[i]!);
    const aggregates = columns.map((c) => c.kind === 'typed' && c.type.aggregate);
    const types = columns.map((c) => (c.kind === 'null' ? 'null' : c.kind === 'slot' ? slotFamily(p, c.slot) : c.type));
    if (dialect === 'sqlite') return { ...sqliteComparison(types), aggregates };
    // MariaDB runs `… UNION b INTERSECT c` through a temporary table: a column that is NULL in
    // every SELECT of that INTERSECT is text there, and makes the compound's column text.
    for (const [first, last] of nestedIntersects(plan)) {
      if (types.slice(first, last + 1).every((t) => t === 'null')) types[first] = family('text', undefined);
    }
    return { ...mysqlComparison(types, i, p.sql), aggregates };
  });
}

/** The branches (first, last) of each INTERSECT that MySQL evaluates as a group after a UNION or EXCEPT. */
function nestedIntersects(plan: CompoundPlan): [number, number][] {
  const groups: [number, number][] = [];
  plan.operators.forEach((operator, k) => {
    if (operator.op !== 'INTERSECT') return;
    const open = groups[groups.length - 1];
    if (open && open[1] === k) open[1] = k + 1;
    else if (k > 0) groups.push([k, k + 1]);
  });
  return groups;
}

function sqliteComparison(types: readonly (Typed | 'null')[]): Omit<ResolvedColumn, 'aggregates'> {
  const names = types.map((t) => (t === 'null' ? undefined : t.collation));
  const odd = names.find((n) => n !== undefined && SQLITE_COLLATIONS[n] === undefined);
  if (odd !== undefined) {
    const why = odd === 'unknown' ? 'an expression with a COLLATE inside, or a column the planner cannot resolve' : `collation ${odd}, which is not one of SQLite's BINARY, NOCASE, RTRIM`;
    return { comparison: undefined, problem: `its values compare under ${why}` };
  }
  return { comparison: { type: 'auto', key: undefined, collations: names.map((n) => (n === undefined ? undefined : SQLITE_COLLATIONS[n])) }, problem: undefined };
}

function mysqlComparison(types: readonly (Typed | 'null')[], index: number, sql: string): Omit<ResolvedColumn, 'aggregates'> {
  const present = types.flatMap((t, branch) => (t === 'null' ? [] : [{ ...t, branch }]));
  if (present.length === 0) return { comparison: { type: 'auto', key: undefined, collations: [] }, problem: undefined };
  const first = present[0]!;
  if (present.length > 1) {
    const other = present.find((t) => t.family !== first.family || t.family.startsWith('unknown'));
    if (other) {
      const what = (t: { family: string; branch: number }) =>
        `${t.family.startsWith('unknown') ? `of a type the planner cannot tell${t.family.startsWith('unknown:') ? ` (${t.family.slice(9)})` : ''}` : t.family} in SELECT ${t.branch + 1}`;
      const unknown = present.find((t) => t.family.startsWith('unknown'));
      throw new UnsupportedShardingError(
        `Column ${index + 1} of the compound SELECT is ${unknown ? what(unknown) : `${what(first)} and ${what(other)}`}; one database would convert every SELECT to a common type, which the shards' separate results cannot reproduce. ` +
          'CAST the column to one type in every SELECT (e.g. CAST(x AS CHAR), CAST(x AS SIGNED), CAST(x AS DECIMAL(20, 2))), or name table columns of one type.',
        { sql },
      );
    }
  }
  const f = first.family;
  const exact = (type: SortKeyType, key?: (e: string) => string) => ({ comparison: { type, key, collations: [] }, problem: undefined });
  if (NUMERIC.test(f)) return exact('numeric');
  if (f === 'float') return exact('numeric', (e) => `(${e} + 0e0)`);
  if (f === 'date' || f.startsWith('datetime(') || f.startsWith('time(')) return exact('numeric', (e) => `(${e} + 0)`);
  if (f.startsWith('timestamp(')) return exact('numeric', (e) => `UNIX_TIMESTAMP(${e})`);
  if (f === 'bytes' || f === 'bit') return exact('binary');
  if (f === 'text') {
    const collations = new Set(present.map((t) => t.collation));
    if (collations.size === 1 && first.collation !== undefined) return exact('mysql-weight', mysqlWeightKey);
    return { comparison: undefined, problem: 'its text comes under different (or unknown) collations in different SELECTs; add the same COLLATE to it in every SELECT' };
  }
  return { comparison: undefined, problem: `its type (${f}) has no order the merge can reproduce` };
}

import type { Compound, CompoundTerm, Cond, Expr, FromItem, Query, Select, SelectItem, Typed } from './ast.js';
import type { Dialect } from './print.js';
import type { ValueType } from './schema.js';

// What kind of value an expression yields and how it must be compared: the generator uses
// it to keep inexact values out of ORDER BY / HAVING / DISTINCT, and the harness to compare
// each output column (numbers by value, text exactly or case-insensitively, floating-point
// aggregates with a tolerance).

const NUMERIC: ReadonlySet<Typed['type']> = new Set(['int', 'bigint', 'decimal', 'double', 'year', 'bool']);

/** True for the types arithmetic and SUM/AVG accept. */
export function isNumeric(t: Typed['type']): boolean {
  return NUMERIC.has(t);
}

/** Text whose case may vary under MariaDB's default `_ci` collation. */
function isText(t: Typed['type']): boolean {
  return t === 'text';
}

function literalType(value: number | string | null): ValueType {
  if (value === null) return 'int';
  if (typeof value === 'string') return 'text';
  return Number.isInteger(value) ? 'int' : 'decimal';
}

/** Floating-point accumulation: SQLite keeps DECIMAL as REAL, so its sums are floating too. */
function floatingSum(t: Typed['type'], dialect: Dialect): boolean {
  return t === 'double' || (dialect === 'sqlite' && t === 'decimal');
}

function arithmeticType(op: string, l: Typed['type'], r: Typed['type'], dialect: Dialect): ValueType {
  if (l === 'double' || r === 'double') return 'double';
  if (op === '/') return dialect === 'mysql' ? 'decimal' : l === 'decimal' || r === 'decimal' ? 'double' : 'int';
  if (l === 'decimal' || r === 'decimal') return dialect === 'sqlite' ? 'double' : 'decimal';
  return l === 'bigint' || r === 'bigint' ? 'bigint' : 'int';
}

const WIDTH: readonly Typed['type'][] = ['bool', 'int', 'year', 'bigint', 'decimal', 'double'];

/** The type of a CASE whose branches are numbers of these types. */
function widerNumber(a: Typed['type'], b: Typed['type']): Typed['type'] {
  return WIDTH.indexOf(a) >= WIDTH.indexOf(b) ? a : b;
}

const exactly = (type: Typed['type'], exact = true, anyCase = false): Typed => ({ type, exact, anyCase });

/** The type of `e` on `dialect`. */
export function typeOf(e: Expr, dialect: Dialect): Typed {
  switch (e.kind) {
    case 'column':
      return exactly(e.column.type, !e.column.inexact, e.column.anyCase === true);
    case 'literal':
    case 'param':
      return exactly(literalType(e.value));
    case 'hex':
      return exactly('binary');
    case 'arith': {
      const l = typeOf(e.left, dialect);
      const r = typeOf(e.right, dialect);
      const type = arithmeticType(e.op, l.type, r.type, dialect);
      // MariaDB sends a computed DOUBLE as text with fewer digits than it compares with: two
      // values DISTINCT or ORDER BY tell apart may reach the client equal. Keep them out of keys.
      return exactly(type, l.exact && r.exact && !(dialect === 'mysql' && type === 'double'));
    }
    case 'call': {
      const args = e.args.map((a) => typeOf(a, dialect));
      const exact = args.every((a) => a.exact);
      const anyCase = args.some((a) => a.anyCase);
      switch (e.fn) {
        case 'CHAR_LENGTH':
          return exactly('int');
        case 'LOWER':
        case 'UPPER':
          return exactly('text');
        case 'CONCAT':
          return exactly('text', exact, anyCase);
        case 'ROUND':
        case 'ABS':
          return exactly(args[0]!.type === 'bool' ? 'int' : args[0]!.type, exact);
        default:
          return exactly(args[0]!.type, exact, anyCase);
      }
    }
    case 'case': {
      const then = typeOf(e.then, dialect);
      const otherwise = e.otherwise ? typeOf(e.otherwise, dialect) : then;
      // Numbers take the wider type of both branches (a SUM over CASE of INT and REAL is a float sum).
      const type = isNumeric(then.type) && isNumeric(otherwise.type) ? widerNumber(then.type, otherwise.type) : then.type;
      return exactly(type, then.exact && otherwise.exact, then.anyCase || otherwise.anyCase);
    }
    case 'truth':
      return exactly('bool');
    case 'alias':
      return typeOf(e.of, dialect);
    case 'scalar':
      return outputsOf(e.query, dialect)[0]!;
    case 'aggregate':
      return aggregateType(e, dialect);
    case 'window':
      if (e.fn === 'ROW_NUMBER' || e.fn === 'RANK' || e.fn === 'DENSE_RANK') return exactly('int');
      return aggregateType({ kind: 'aggregate', fn: e.fn, arg: e.arg, distinct: false }, dialect);
    case 'json':
      // A JSON value or a scalar from one (number, text, JSON text): compared by its canonical
      // text, never an ORDER BY / DISTINCT key the generator relies on (`exact: false`).
      return exactly('json', false);
    case 'userVar':
      return e.assign ? typeOf(e.assign, dialect) : exactly('int');
    case 'foundRows':
      return exactly('int');
  }
}

/** The first select of a query (whose names and types a compound's columns take). */
export function firstSelect(q: Query): Select {
  if (q.kind === 'select') return q;
  if (q.kind === 'union') return q.selects[0]!;
  return firstSelectOfTerm(q.first);
}

function firstSelectOfTerm(t: CompoundTerm): Select {
  return t.kind === 'paren' ? firstSelect(t.query) : t;
}

/** Every select of a compound's chain, nested ones included (not those inside FROM subqueries). */
export function compoundSelects(q: Compound): Select[] {
  const out: Select[] = [];
  const visit = (t: CompoundTerm) => {
    if (t.kind !== 'paren') out.push(t);
    else if (t.query.kind === 'select') out.push(t.query);
    else if (t.query.kind === 'union') out.push(...t.query.selects);
    else out.push(...compoundSelects(t.query));
  };
  visit(q.first);
  for (const r of q.rest) visit(r.term);
  return out;
}

function aggregateType(e: Extract<Expr, { kind: 'aggregate' }>, dialect: Dialect): Typed {
  const arg = e.arg ? typeOf(e.arg, dialect) : exactly('int');
  const argType = arg.type === 'bool' ? 'int' : arg.type;
  switch (e.fn) {
    case 'COUNT':
    case 'BIT_AND':
    case 'BIT_OR':
    case 'BIT_XOR':
      return exactly('int');
    case 'SUM':
      return exactly(floatingSum(argType, dialect) ? 'double' : dialect === 'mysql' ? 'decimal' : argType, arg.exact && !floatingSum(argType, dialect));
    case 'AVG':
      return exactly(dialect === 'sqlite' || argType === 'double' ? 'double' : 'decimal', arg.exact && !floatingSum(argType, dialect));
    case 'MIN':
    case 'MAX':
      return exactly(argType, arg.exact, arg.anyCase || (dialect === 'mysql' && isText(argType)));
    case 'GROUP_CONCAT':
      return exactly('text', arg.exact, arg.anyCase || (dialect === 'mysql' && isText(argType)));
    case 'STDDEV':
    case 'STDDEV_SAMP':
    case 'VARIANCE':
    case 'VAR_SAMP':
      return exactly('double', false);
  }
}

/**
 * How each output column of a select compares. In a grouped, DISTINCT or UNION result on
 * MariaDB a text value stands for every case variant its collation treats as equal, and the
 * database shows whichever it met first: compare those case-insensitively.
 */
export function outputsOf(q: Select, dialect: Dialect, inUnion = false): Typed[] {
  const collapsed = dialect === 'mysql' && (inUnion || q.distinct || q.groupBy.length > 0 || hasAggregate(q));
  const items: readonly SelectItem[] = q.items === '*' ? starItems(q.from) : q.items;
  const sortsThroughTempTable = dialect === 'mysql' && q.orderBy.length > 0 && items.some((i) => hasDistinctAggregate(i.expr));
  return items.map((i) => {
    const t = typeOf(i.expr, dialect);
    const typed = collapsed && isText(t.type) ? { ...t, anyCase: true } : t;
    // Grouping through a temporary table, MariaDB keeps each aggregate at its shown scale and
    // computes an expression over it from that; grouping along an index (a shard's plan may),
    // from the full value.
    const grouped = dialect === 'mysql' && q.groupBy.length > 0;
    const rounded = ((sortsThroughTempTable || grouped) && i.expr.kind !== 'aggregate' && hasRoundedAggregate(i.expr)) || (grouped && hasQuotientSum(i.expr));
    return rounded ? { ...typed, serverRounded: true } : typed;
  });
}

/**
 * True when `e` holds SUM or AVG of a quotient: grouping through a temporary table, MariaDB
 * rounds each row's quotient to its shown scale before adding (grouping along an index, it
 * does not); the merge adds full quotients.
 */
function hasQuotientSum(e: Expr): boolean {
  return someExpr(e, (x) => x.kind === 'aggregate' && (x.fn === 'SUM' || x.fn === 'AVG') && x.arg !== undefined && someExpr(x.arg, (y) => y.kind === 'arith' && y.op === '/'));
}

/** True when `e` holds an aggregate with DISTINCT. */
function hasDistinctAggregate(e: Expr): boolean {
  return someExpr(e, (x) => x.kind === 'aggregate' && x.distinct);
}

/** True when `e` holds an aggregate whose shown value is rounded: AVG, or an aggregate of a quotient. */
function hasRoundedAggregate(e: Expr): boolean {
  return someExpr(e, (x) => x.kind === 'aggregate' && (x.fn === 'AVG' || (x.arg !== undefined && someExpr(x.arg, (y) => y.kind === 'arith' && y.op === '/'))));
}

/** True when `test` holds for `e` or an expression inside it (not inside subqueries). */
export function someExpr(e: Expr, test: (x: Expr) => boolean): boolean {
  if (test(e)) return true;
  switch (e.kind) {
    case 'aggregate':
      return e.arg !== undefined && someExpr(e.arg, test);
    case 'arith':
      return someExpr(e.left, test) || someExpr(e.right, test);
    case 'call':
      return e.args.some((a) => someExpr(a, test));
    case 'case':
      return someExpr(e.then, test) || (e.otherwise !== undefined && someExpr(e.otherwise, test));
    case 'alias':
      return someExpr(e.of, test);
    default:
      return false;
  }
}

/** The items `*` stands for: every column of the FROM table. */
export function starItems(from: FromItem): SelectItem[] {
  if (from.kind !== 'table') throw new Error('* over a derived table is not generated');
  const alias = from.alias;
  return from.table.columns.map((column) => ({ expr: { kind: 'column', table: alias, column }, alias: undefined }));
}

/** True when the select list holds an aggregate (outside subqueries). */
export function hasAggregate(q: Select): boolean {
  return q.items !== '*' && q.items.some((i) => containsAggregate(i.expr));
}

/** True when the expression holds an aggregate (outside subqueries). */
export function containsAggregate(e: Expr): boolean {
  switch (e.kind) {
    case 'aggregate':
      return true;
    case 'arith':
      return containsAggregate(e.left) || containsAggregate(e.right);
    case 'call':
      return e.args.some(containsAggregate);
    case 'case':
      return condHasAggregate(e.when) || containsAggregate(e.then) || (e.otherwise !== undefined && containsAggregate(e.otherwise));
    case 'truth':
      return condHasAggregate(e.cond);
    case 'alias':
      return containsAggregate(e.of);
    default:
      return false;
  }
}

function condHasAggregate(c: Cond): boolean {
  switch (c.kind) {
    case 'compare':
      return containsAggregate(c.left) || containsAggregate(c.right);
    case 'isNull':
    case 'inList':
    case 'like':
    case 'between':
    case 'inSelect':
      return containsAggregate(c.arg);
    case 'exists':
      return false;
    case 'logic':
      return c.items.some(condHasAggregate);
    case 'not':
      return condHasAggregate(c.arg);
    case 'rowIn':
    case 'rowInSelect':
      return c.left.some(containsAggregate);
    case 'rowCompare':
      return c.left.some(containsAggregate) || c.right.some(containsAggregate);
  }
}

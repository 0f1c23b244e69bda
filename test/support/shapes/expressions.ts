import type { AggregateFn, Expr, ScalarFn } from './ast.js';
import { conditionOf, simpleRowCondition } from './conditions.js';
import { columnExpr, SPECIAL_TYPES, type Gen, type Scope, type ScopeColumn } from './context.js';
import { isNumeric, typeOf } from './typing.js';

// Expressions of a select: row-level ones (over the columns of the FROM clause) and
// aggregate-level ones (aggregates and group keys, alone or inside arithmetic, COALESCE,
// CASE, …). Choice 0 is always the simplest: a column, COUNT(*).

/** What an expression should yield. */
export type Want = 'num' | 'text' | 'any';

/** Options of row-level expression generation. */
export interface RowOptions {
  /** `?` parameters allowed (not in ORDER BY / GROUP BY terms, whose text is their identity). */
  readonly params: boolean;
  /** Only values that compare exactly (no floating-point aggregates of a derived table). */
  readonly exact: boolean;
}

const NUM_TYPES = new Set(['int', 'bigint', 'decimal', 'double', 'year']);

function fits(c: ScopeColumn, want: Want, arithmetic: boolean): boolean {
  if (arithmetic && !c.def.arithmetic) return false;
  if (want === 'num') return NUM_TYPES.has(c.def.type) && (!arithmetic || c.def.type !== 'year');
  if (want === 'text') return c.def.type === 'text';
  return true;
}

/** A column of the scope that yields `want`; special types weigh `specialTypes` each. */
export function pickColumn(g: Gen, scope: Scope, want: Want, opts: { arithmetic?: boolean; exact?: boolean } = {}): ScopeColumn | undefined {
  const candidates = scope.columns.filter((c) => fits(c, want, opts.arithmetic === true) && (!opts.exact || !c.def.inexact));
  if (candidates.length === 0) return undefined;
  const picked = g.c.weighted(candidates.map((c) => [SPECIAL_TYPES.has(c.def.type) ? g.cls.specialTypes : 1, c] as const));
  return picked;
}

const SMALL_NUMBERS = [1, 0, 2, 3, 10, -1, 2.5, 100];

export function smallLiteral(g: Gen): Expr {
  return { kind: 'literal', value: g.c.pick(SMALL_NUMBERS) };
}

/** A value to compare a column with: one of its samples, as a literal or a parameter. */
export function sampleOf(g: Gen, c: ScopeColumn, params: boolean): Expr {
  const samples = c.def.samples;
  if (c.def.type === 'binary') return { kind: 'hex', hex: g.c.pick(['41', 'ff', '00', '61']) };
  if (c.def.type === 'bit') return { kind: 'literal', value: g.c.between(0, 15) };
  const value = samples.length > 0 ? g.c.pick(samples) : g.c.pick(SMALL_NUMBERS);
  return params && g.c.chance(0.4) ? { kind: 'param', value } : { kind: 'literal', value };
}

/** A row-level expression yielding `want`. */
export function rowExpr(g: Gen, scope: Scope, want: Want, depth: number, opts: RowOptions): Expr {
  const leaf = depth >= 2;
  const column = (arithmetic = false) => pickColumn(g, scope, want === 'any' ? 'any' : want, { arithmetic, exact: opts.exact });
  const choice = g.c.weighted<string>([
    [6, 'column'],
    [leaf || want === 'text' ? 0 : 1.5, 'arith'],
    [leaf ? 0 : 1.5, 'call'],
    [leaf ? 0 : 0.5, 'case'],
    [leaf || want === 'text' ? 0 : 0.4, 'truth'],
    [0.3, 'literal'],
    [opts.params ? 0.2 : 0, 'param'],
  ]);
  switch (choice) {
    case 'arith': {
      const left = pickColumn(g, scope, 'num', { arithmetic: true, exact: opts.exact });
      if (!left) break;
      const intOnly = left.def.type === 'int';
      const op = g.c.pick(intOnly ? (['+', '-', '*', '/', '%'] as const) : (['+', '-', '*', '/'] as const));
      const rightColumn = g.c.chance(0.35) ? pickColumn(g, scope, 'num', { arithmetic: true, exact: opts.exact }) : undefined;
      const right = rightColumn && (op !== '%' || rightColumn.def.type === 'int') ? columnExpr(rightColumn) : { kind: 'literal' as const, value: op === '%' ? g.c.pick([2, 3, 5]) : g.c.pick(SMALL_NUMBERS) };
      return { kind: 'arith', op, left: columnExpr(left), right };
    }
    case 'call': {
      const call = scalarCall(g, want, (w) => rowExpr(g, scope, w, depth + 1, opts));
      if (call) return call;
      break;
    }
    case 'case': {
      const branch: Want = want === 'any' ? g.c.pick(['num', 'text'] as const) : want;
      return {
        kind: 'case',
        when: simpleRowCondition(g, scope, opts.params),
        then: rowExpr(g, scope, branch, depth + 1, opts),
        otherwise: g.c.chance(0.8) ? rowExpr(g, scope, branch, depth + 1, opts) : undefined,
      };
    }
    case 'truth':
      return { kind: 'truth', cond: simpleRowCondition(g, scope, opts.params) };
    case 'literal':
      return want === 'text' ? { kind: 'literal', value: g.c.pick(['x', 'apple', '']) } : smallLiteral(g);
    case 'param':
      return want === 'text' ? { kind: 'param', value: g.c.pick(['x', 'b']) } : { kind: 'param', value: g.c.pick(SMALL_NUMBERS) };
  }
  const c = column() ?? pickColumn(g, scope, 'any', { exact: opts.exact });
  if (!c) return smallLiteral(g);
  return columnExpr(c);
}

/** A scalar function call over arguments made by `arg` (row-level or aggregate-level). */
export function scalarCall(g: Gen, want: Want, arg: (w: Want) => Expr): Expr | undefined {
  const numeric: [number, ScalarFn][] = [[2, 'COALESCE'], [1, 'IFNULL'], [1, 'ABS'], [0.7, 'ROUND'], [0.5, 'NULLIF'], [1, 'CHAR_LENGTH']];
  const textual: [number, ScalarFn][] = [[2, 'COALESCE'], [1, 'LOWER'], [1, 'UPPER'], [1, 'CONCAT'], [0.5, 'IFNULL'], [0.3, 'NULLIF']];
  const fn = g.c.weighted<ScalarFn>(want === 'num' ? numeric : want === 'text' ? textual : [...numeric, ...textual]);
  switch (fn) {
    case 'COALESCE':
    case 'IFNULL':
    case 'NULLIF': {
      const w: Want = want === 'any' ? (textual.some(([, f]) => f === fn) && g.c.chance(0.4) ? 'text' : 'num') : want;
      const first = arg(w);
      const t = typeOf(first, g.dialect).type;
      const fallback: Expr = t === 'text' ? { kind: 'literal', value: g.c.pick(['', 'none', 'Apple']) } : isNumeric(t) ? { kind: 'literal', value: g.c.pick([0, -1, 1]) } : first;
      if (fallback === first) return first;
      return { kind: 'call', fn, args: [first, fallback] };
    }
    case 'ABS':
      return { kind: 'call', fn, args: [arg('num')] };
    case 'ROUND':
      return { kind: 'call', fn, args: [arg('num'), { kind: 'literal', value: g.c.pick([0, 1, 2]) }] };
    case 'CHAR_LENGTH':
      return { kind: 'call', fn, args: [arg('text')] };
    case 'LOWER':
    case 'UPPER':
      return { kind: 'call', fn, args: [arg('text')] };
    case 'CONCAT':
      return { kind: 'call', fn, args: [arg('text'), g.c.chance(0.5) ? { kind: 'literal', value: '-' } : arg('text')] };
  }
}

/** An aggregate function call over the rows of `scope`. */
export function aggregate(g: Gen, scope: Scope, want: Want, opts: RowOptions): Expr {
  const mysql = g.dialect === 'mysql';
  const d = g.cls.distinctAggregates;
  type Choice = readonly [AggregateFn, 'star' | 'plain' | 'distinct'];
  const numeric: (readonly [number, Choice])[] = [
    [3, ['COUNT', 'star']],
    [1, ['COUNT', 'plain']],
    [d, ['COUNT', 'distinct']],
    [2.5, ['SUM', 'plain']],
    [0.3 * d, ['SUM', 'distinct']],
    [1.5, ['AVG', 'plain']],
    [0.2 * d, ['AVG', 'distinct']],
    [1.5, ['MIN', 'plain']],
    [1.5, ['MAX', 'plain']],
    [mysql ? 0.25 : 0, ['BIT_AND', 'plain']],
    [mysql ? 0.25 : 0, ['BIT_OR', 'plain']],
    [mysql ? 0.25 : 0, ['BIT_XOR', 'plain']],
    [mysql ? 0.15 : 0, ['STDDEV', 'plain']],
    [mysql ? 0.1 : 0, ['STDDEV_SAMP', 'plain']],
    [mysql ? 0.15 : 0, ['VARIANCE', 'plain']],
    [mysql ? 0.1 : 0, ['VAR_SAMP', 'plain']],
  ];
  const textual: (readonly [number, Choice])[] = [
    [2, ['MAX', 'plain']],
    [2, ['MIN', 'plain']],
    [0.8, ['GROUP_CONCAT', 'plain']],
    [0.3 * d, ['GROUP_CONCAT', 'distinct']],
  ];
  const [fn, form] = g.c.weighted<Choice>(want === 'num' ? numeric : want === 'text' ? textual : [...numeric, ...textual]);
  if (form === 'star') return { kind: 'aggregate', fn, arg: undefined, distinct: false };
  const rowOpts = { ...opts, params: false };
  let arg: Expr;
  switch (fn) {
    case 'COUNT':
      arg = form === 'distinct' && g.c.chance(0.7) ? columnExpr(pickColumn(g, scope, 'any', rowOpts)!) : rowExpr(g, scope, 'any', 1, rowOpts);
      break;
    case 'MIN':
    case 'MAX': {
      arg = want === 'any' && g.c.chance(0.6) ? columnExpr(pickColumn(g, scope, 'any', rowOpts)!) : rowExpr(g, scope, want, 1, rowOpts);
      // MariaDB 10.11 returns MIN/MAX of a BIT column as its bytes or as its decimal digits
      // (`0x07` or `'7'`) as the plan goes, and another item beside it can switch the plan: the
      // value is compared as the number it is (`col + 0`), which every plan returns alike.
      if (g.dialect === 'mysql' && arg.kind === 'column' && arg.column.type === 'bit') arg = { kind: 'arith', op: '+', left: arg, right: { kind: 'literal', value: 0 } };
      break;
    }
    case 'GROUP_CONCAT': {
      const c = pickColumn(g, scope, g.c.chance(0.5) ? 'text' : 'num', rowOpts) ?? pickColumn(g, scope, 'any', rowOpts)!;
      arg = columnExpr(c);
      break;
    }
    case 'BIT_AND':
    case 'BIT_OR':
    case 'BIT_XOR': {
      const c = scope.columns.filter((col) => col.def.type === 'int' && !col.def.inexact);
      arg = c.length > 0 ? columnExpr(g.c.pick(c)) : { kind: 'literal', value: 1 };
      break;
    }
    default:
      arg = rowExpr(g, scope, 'num', 1, rowOpts);
  }
  const t = typeOf(arg, g.dialect).type;
  if ((fn === 'SUM' || fn === 'AVG' || fn.startsWith('STD') || fn.startsWith('VAR')) && !isNumeric(t)) arg = columnExpr(pickColumn(g, scope, 'num', rowOpts) ?? scope.columns[0]!);
  return { kind: 'aggregate', fn, arg, distinct: form === 'distinct' };
}

/** Options of aggregate-level expression generation. */
export interface AggregateLevel {
  readonly scope: Scope;
  /** The GROUP BY expressions (what a select of a grouped query may show besides aggregates). */
  readonly groupKeys: readonly Expr[];
  readonly exact: boolean;
}

/** An expression of an aggregate select: aggregates and group keys, alone or combined. */
export function aggregateExpr(g: Gen, level: AggregateLevel, want: Want, depth: number): Expr {
  const e = aggregateExprRaw(g, level, want, depth);
  if (level.exact && !typeOf(e, g.dialect).exact) return { kind: 'aggregate', fn: 'COUNT', arg: undefined, distinct: false };
  return e;
}

function aggregateExprRaw(g: Gen, level: AggregateLevel, want: Want, depth: number): Expr {
  const leaf = depth >= 2;
  const inside = g.cls.aggregateInExpression;
  const keys = level.groupKeys.filter((k) => {
    const t = typeOf(k, g.dialect).type;
    return want === 'any' || (want === 'num' ? isNumeric(t) : t === 'text');
  });
  const rowOpts: RowOptions = { params: false, exact: level.exact };
  const choice = g.c.weighted<string>([
    [4, 'aggregate'],
    [keys.length > 0 ? 2 : 0, 'key'],
    [leaf || want === 'text' ? 0 : 3 * inside, 'arith'],
    [leaf ? 0 : 2 * inside, 'call'],
    [leaf ? 0 : 0.5 * inside, 'case'],
    [leaf || want === 'text' ? 0 : 0.3 * inside, 'truth'],
    [0.15, 'literal'],
  ]);
  switch (choice) {
    case 'key':
      return g.c.pick(keys);
    case 'arith': {
      const op = g.c.pick(['+', '-', '*', '/'] as const);
      const left = aggregateExpr(g, level, 'num', depth + 1);
      const right = g.c.chance(0.5) ? aggregateExpr(g, level, 'num', depth + 1) : smallLiteral(g);
      if (overflowRisk(left) || overflowRisk(right)) return overflowRisk(left) ? right : left;
      return { kind: 'arith', op, left, right };
    }
    case 'call': {
      const call = scalarCall(g, want, (w) => aggregateExpr(g, level, w, depth + 1));
      if (call) return call;
      break;
    }
    case 'case': {
      const branch: Want = want === 'text' ? 'text' : 'num';
      return { kind: 'case', when: conditionOf(g, level, 1), then: aggregateExpr(g, level, branch, depth + 1), otherwise: g.c.chance(0.7) ? aggregateExpr(g, level, branch, depth + 1) : undefined };
    }
    case 'truth':
      return { kind: 'truth', cond: conditionOf(g, level, 1) };
    case 'literal':
      return want === 'text' ? { kind: 'literal', value: 'k' } : smallLiteral(g);
  }
  return aggregate(g, level.scope, want, rowOpts);
}

/**
 * True when arithmetic on `e` may leave MariaDB's 64-bit range (an error there, not NULL):
 * BIGINT columns near 2^62 (as group keys or through MIN/MAX) and BIT_AND/OR/XOR, which are
 * unsigned 64-bit. SUM/AVG/COUNT are safe: they yield DECIMAL, or small sums.
 */
export function overflowRisk(e: Expr): boolean {
  switch (e.kind) {
    case 'column':
      return !e.column.arithmetic && isNumeric(e.column.type);
    case 'aggregate':
      if (e.fn === 'BIT_AND' || e.fn === 'BIT_OR' || e.fn === 'BIT_XOR') return true;
      return (e.fn === 'MIN' || e.fn === 'MAX') && e.arg !== undefined && overflowRisk(e.arg);
    case 'arith':
      return overflowRisk(e.left) || overflowRisk(e.right);
    case 'call':
      return e.args.some(overflowRisk);
    case 'case':
      return overflowRisk(e.then) || (e.otherwise !== undefined && overflowRisk(e.otherwise));
    default:
      return false;
  }
}

import type { CompareOp, Cond, Expr } from './ast.js';
import { columnExpr, type Gen, type Scope } from './context.js';
import { aggregateExpr, pickColumn, rowExpr, sampleOf, smallLiteral, type AggregateLevel } from './expressions.js';
import { subqueryCondition } from './subqueries.js';
import { isNumeric, typeOf } from './typing.js';

// Conditions: row-level ones for WHERE / ON / CASE (comparisons with the data's own values,
// NULL tests, IN lists, BETWEEN, LIKE, AND/OR/NOT, subqueries), shard-key conditions, and
// aggregate-level ones for HAVING (comparisons with parameters and NULL, under NOT).

const OPS: readonly CompareOp[] = ['=', '<>', '<', '<=', '>', '>='];
const LIKE_PATTERNS = ['a%', '%e%', 'B%', '_', '%', 'sku%'];

function nullValue(g: Gen): Expr {
  return g.c.chance(0.5) ? { kind: 'param', value: null } : { kind: 'literal', value: null };
}

/** A comparison, NULL test, IN list, BETWEEN or LIKE on one column (no AND/OR, no subquery). */
export function simpleRowCondition(g: Gen, scope: Scope, params: boolean): Cond {
  const c = pickColumn(g, scope, 'any', { exact: true });
  if (!c) return { kind: 'compare', op: '=', left: { kind: 'literal', value: 1 }, right: { kind: 'literal', value: 1 } };
  const col = columnExpr(c);
  const type = c.def.type;
  const form = g.c.weighted<string>([
    [3, 'compare'],
    [1.5, 'isNull'],
    [type === 'json' ? 0 : 1, 'in'],
    [isNumeric(type) || type === 'date' || type === 'datetime' ? 0.6 : 0, 'between'],
    [type === 'text' ? 0.8 : 0, 'like'],
  ]);
  if (type === 'json' && form === 'compare') return { kind: 'isNull', arg: col, negated: g.c.chance(0.5) };
  switch (form) {
    case 'isNull':
      return { kind: 'isNull', arg: col, negated: g.c.chance(0.5) };
    case 'in': {
      const n = g.c.between(1, 4);
      const items = Array.from({ length: n }, () => sampleOf(g, c, params));
      return { kind: 'inList', arg: col, items, negated: g.c.chance(0.25) };
    }
    case 'between':
      return { kind: 'between', arg: col, low: sampleOf(g, c, params), high: sampleOf(g, c, params) };
    case 'like': {
      const pattern = g.c.pick(LIKE_PATTERNS);
      return { kind: 'like', arg: col, pattern: params && g.c.chance(0.4) ? { kind: 'param', value: pattern } : { kind: 'literal', value: pattern }, negated: g.c.chance(0.2) };
    }
  }
  // compare
  const op = g.c.pick(OPS);
  if (isNumeric(type) && c.def.arithmetic && g.c.chance(0.2)) {
    return { kind: 'compare', op, left: rowExpr(g, scope, 'num', 1, { params, exact: true }), right: smallLiteral(g) };
  }
  const other = g.c.chance(0.1) ? scope.columns.find((o) => o !== c && o.def.type === type && !o.def.inexact) : undefined;
  const right = g.c.chance(0.04) ? nullValue(g) : other ? columnExpr(other) : sampleOf(g, c, params);
  return { kind: 'compare', op, left: col, right };
}

/** A row-level condition, possibly combined with AND/OR/NOT and (at the top) subqueries. */
export function rowCondition(g: Gen, scope: Scope, depth: number, opts: { params: boolean; subqueries: boolean }): Cond {
  const nested = depth < 2;
  const form = g.c.weighted<string>([
    [5, 'simple'],
    [nested ? 1.2 : 0, 'logic'],
    [nested ? 0.7 : 0, 'not'],
    [opts.subqueries && scope.facts !== undefined && depth < 2 ? 8 * g.cls.whereSubquery : 0, 'subquery'],
  ]);
  switch (form) {
    case 'logic': {
      const op = g.c.pick(['AND', 'OR'] as const);
      const n = g.c.between(2, 3);
      return { kind: 'logic', op, items: Array.from({ length: n }, () => rowCondition(g, scope, depth + 1, opts)) };
    }
    case 'not':
      return { kind: 'not', arg: rowCondition(g, scope, depth + 1, opts) };
    case 'subquery':
      return subqueryCondition(g, scope);
  }
  return simpleRowCondition(g, scope, opts.params);
}

/** A condition on a shard key of the scope (`=`, IN, NOT IN, BETWEEN), or undefined when there is none. */
export function keyCondition(g: Gen, scope: Scope): Cond | undefined {
  const keys = scope.columns.filter((c) => c.def.key);
  if (keys.length === 0) return undefined;
  const key = columnExpr(g.c.pick(keys));
  const value = (): Expr => {
    const id = g.c.chance(0.2) ? g.c.pick(g.data.missingIds) : g.c.pick(g.data.factIds);
    if (!g.c.chance(0.5)) return { kind: 'literal', value: id };
    return { kind: 'param', value: g.c.chance(0.15) ? String(id) : id };
  };
  const form = g.c.weighted<string>([
    [3, 'eq'],
    [4, 'in'],
    [0.6, 'notIn'],
    [0.4, 'between'],
  ]);
  switch (form) {
    case 'in':
    case 'notIn':
      return { kind: 'inList', arg: key, items: Array.from({ length: g.c.between(1, 8) }, value), negated: form === 'notIn' };
    case 'between':
      return { kind: 'between', arg: key, low: value(), high: value() };
  }
  return { kind: 'compare', op: '=', left: key, right: value() };
}

/** The WHERE of a select: a shard-key condition and/or other conditions, joined by AND or (sometimes) OR. */
export function whereCondition(g: Gen, scope: Scope, subqueries: boolean): Cond | undefined {
  const key = g.c.chance(g.cls.keyCondition) ? keyCondition(g, scope) : undefined;
  const other = g.c.chance(0.55) ? rowCondition(g, scope, 0, { params: true, subqueries }) : undefined;
  if (key && other) {
    const or = g.c.chance(0.25);
    return { kind: 'logic', op: or ? 'OR' : 'AND', items: g.c.chance(0.5) ? [key, other] : [other, key] };
  }
  return key ?? other;
}

/** HAVING-level options: the aggregate level plus the select-list aliases HAVING may name. */
export interface HavingLevel extends AggregateLevel {
  readonly aliases?: readonly { readonly name: string; readonly of: Expr }[];
}

/** A condition over aggregates and group keys (HAVING, or CASE WHEN inside an aggregate select). */
export function conditionOf(g: Gen, level: HavingLevel, depth: number): Cond {
  const exactLevel = { ...level, exact: true };
  const nested = depth < 2;
  const keys = level.groupKeys;
  const form = g.c.weighted<string>([
    [4, 'compare'],
    [1, 'isNull'],
    [0.5, 'text'],
    [nested ? 0.8 : 0, 'logic'],
    [nested ? 1.2 : 0, 'not'],
    [keys.length > 0 ? 0.6 : 0, 'key'],
  ]);
  switch (form) {
    case 'isNull':
      return { kind: 'isNull', arg: aggregateExpr(g, exactLevel, 'num', depth + 1), negated: g.c.chance(0.5) };
    case 'text': {
      const left = aggregateExpr(g, exactLevel, 'text', depth + 1);
      return { kind: 'compare', op: g.c.pick(OPS), left, right: g.c.chance(0.5) ? { kind: 'literal', value: g.c.pick(['b', 'Apple', '']) } : { kind: 'param', value: g.c.pick(['b', 'apple']) } };
    }
    case 'logic':
      return { kind: 'logic', op: g.c.pick(['AND', 'OR'] as const), items: [conditionOf(g, level, depth + 1), conditionOf(g, level, depth + 1)] };
    case 'not':
      return { kind: 'not', arg: conditionOf(g, level, depth + 1) };
    case 'key': {
      const key = g.c.pick(keys);
      const t = typeOf(key, g.dialect).type;
      if (isNumeric(t)) return { kind: 'compare', op: g.c.pick(OPS), left: key, right: smallLiteral(g) };
      if (t === 'text') return { kind: 'compare', op: g.c.pick(OPS), left: key, right: { kind: 'literal', value: 'b' } };
      return { kind: 'isNull', arg: key, negated: g.c.chance(0.5) };
    }
  }
  const aliases = (level.aliases ?? []).filter((a) => isNumeric(typeOf(a.of, g.dialect).type) && typeOf(a.of, g.dialect).exact);
  let left: Expr;
  if (aliases.length > 0 && g.c.chance(0.3)) {
    left = { kind: 'alias', ...g.c.pick(aliases) };
  } else left = aggregateExpr(g, exactLevel, 'num', depth + 1);
  const right = g.c.weighted<() => Expr>([
    [3, () => smallLiteral(g)],
    [1.5, () => ({ kind: 'param', value: g.c.pick([0, 1, 2, 5, 10, 2.5]) })],
    [0.7, () => nullValue(g)],
    [0.8, () => aggregateExpr(g, exactLevel, 'num', depth + 1)],
  ])();
  return { kind: 'compare', op: g.c.pick(OPS), left, right };
}

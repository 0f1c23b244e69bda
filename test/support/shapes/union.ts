import type { Expr, Query, Select, SelectItem, Term, Typed } from './ast.js';
import { whereCondition } from './conditions.js';
import { columnExpr, tableScope, type Gen } from './context.js';
import { aggregateExpr, pickColumn, rowExpr, type Want } from './expressions.js';
import { limitClause, orderClause } from './order-by.js';
import type { TableDef } from './schema.js';
import { nameItems } from './select-items.js';
import type { Built } from './selects.js';
import { outputsOf } from './typing.js';

// UNION and UNION ALL: branches over the sharded and the broadcast tables with the same
// number and kinds of columns; ORDER BY only by position or by the first branch's names.

/** A UNION [ALL] of 2–3 selects over the sharded and broadcast tables, ordered by positions or names. */
export function buildUnion(g: Gen): Built {
  const kinds: Want[] = Array.from({ length: g.c.between(1, 3) }, () => g.c.pick(['num', 'text'] as const));
  const n = g.c.chance(0.2) ? 3 : 2;
  const selects: Select[] = [];
  let names: string[] = [];
  for (let b = 0; b < n; b++) {
    const branch = unionBranch(g, kinds, b === 0);
    if (b === 0) names = branch.names;
    selects.push(branch.select);
  }
  const per = selects.map((s) => outputsOf(s, g.dialect, true));
  const outputs: Typed[] = kinds.map((_, i) => ({
    type: per[0]![i]!.type,
    exact: per.every((o) => o[i]!.exact),
    anyCase: per.some((o) => o[i]!.anyCase),
  }));
  const all = g.c.chance(0.5) || outputs.some((o) => !o.exact);
  const first = selects[0]!.items as readonly SelectItem[];
  const positions = first.map((_, i) => `#${i + 1}`);
  const order = orderClause(g, { items: first, itemTexts: positions, outputs, onlyItems: true, exprTerms: false, unique: undefined, extra: () => ({ kind: 'literal', value: 1 }) });
  const limit = order.ordered && g.c.chance(g.cls.limit) ? limitClause(g) : undefined;
  const query: Query = { kind: 'union', all, selects, orderBy: order.keys, limit };
  return { query, outputs, ordered: order.ordered, uniqueItems: undefined, itemTexts: positions, itemNames: names };
}


/**
 * One branch of a set operation: a select over a sharded or the broadcast table yielding
 * `kinds` (grouped sometimes); the first branch names its columns (its aliases name the result's).
 * `freshAlias`: a table alias of its own (nested compounds, where an outer alias may be visible).
 */
export function unionBranch(g: Gen, kinds: readonly Want[], first: boolean, freshAlias = false): { select: Select; names: string[] } {
  const { facts, lines, refs } = g.tables;
  const table = g.c.weighted<TableDef>([
    [3, facts],
    [2, lines],
    [1, refs],
  ]);
  const prefix = table === facts ? 'f' : table === lines ? 'l' : 'r';
  const alias = freshAlias ? g.subAlias(prefix) : prefix;
  const scope = tableScope(table, alias, false);
  const grouped = g.c.chance(g.cls.aggregate * 0.5);
  let exprs: Expr[];
  let groupBy: Term[] = [];
  if (grouped) {
    const key = columnExpr(pickColumn(g, scope, 'any', { exact: true })!);
    groupBy = [{ kind: 'expr', expr: key }];
    exprs = kinds.map((k) => aggregateExpr(g, { scope, groupKeys: [key], exact: true }, k, 0));
  } else {
    exprs = kinds.map((k) => rowExpr(g, scope, k, 0, { params: true, exact: true }));
  }
  const named = nameItems(g, exprs, first);
  return {
    names: named.names,
    select: {
      kind: 'select',
      distinct: false,
      items: named.items,
      from: { kind: 'table', table, alias },
      joins: [],
      where: g.c.chance(0.5) ? whereCondition(g, scope, false) : undefined,
      groupBy,
      having: undefined,
      orderBy: [],
      limit: undefined,
    },
  };
}

import type { Cond, Expr, Join, Select } from './ast.js';
import { simpleRowCondition } from './conditions.js';
import { tableScope, type Gen } from './context.js';
import { col, finish, items, selectOf, tableFrom } from './grammar-common.js';
import type { Built } from './selects.js';

// DISTINCT over a GROUP BY of the shard key (issue 14, "test gaps"): each group lives on one
// shard, but the DISTINCT rows the groups make repeat across shards, so the DISTINCT must still
// be merged. `SELECT DISTINCT buyerId FROM orders GROUP BY id ORDER BY buyerId` gives 12 rows
// when taken as shard-local where one database gives 3. Only columns fixed by the group key
// (columns of the grouped row, or aggregates) are selected, so each group has one value.

const count: Expr = { kind: 'aggregate', fn: 'COUNT', arg: undefined, distinct: false };

export function buildDistinctGroups(g: Gen): Built {
  const { facts, lines } = g.tables;
  const form = g.c.weighted<string>([
    [3, 'facts'],
    [1.5, 'lines'],
    [1, 'counts'],
    [1.2, 'join'],
  ]);
  const f = (n: string) => col(facts, 'f', n);
  const l = (n: string) => col(lines, 'l', n);
  let select: Select;
  switch (form) {
    case 'lines': {
      // Grouped by the line's unique id (and its shard key): each group is one line.
      const shown = g.c.pick([['qty'], ['sku'], ['qty', 'price'], ['factId']]);
      select = selectOf({ items: items(...shown.map((n) => [l(n), undefined] as const)), from: tableFrom(lines, 'l'), groupBy: [{ kind: 'expr', expr: l('factId') }, { kind: 'expr', expr: l('id') }], where: where(g, 'l') });
      break;
    }
    case 'counts':
      // The number of lines per fact: the same counts on every shard.
      select = selectOf({ items: items([count, 'n']), from: tableFrom(lines, 'l'), groupBy: [{ kind: 'expr', expr: l('factId') }], having: g.c.chance(0.3) ? { kind: 'compare', op: '>=', left: count, right: { kind: 'literal', value: 2 } } : undefined });
      break;
    case 'join': {
      const join: Join = { type: g.c.chance(0.3) ? 'LEFT' : 'INNER', item: tableFrom(lines, 'l'), on: { kind: 'compare', op: '=', left: l('factId'), right: f('id') } };
      select = selectOf({ items: items([f('grp'), undefined], [{ kind: 'aggregate', fn: 'COUNT', arg: l('id'), distinct: false }, 'n']), from: tableFrom(facts, 'f'), joins: [join], groupBy: [{ kind: 'expr', expr: f('id') }] });
      break;
    }
    default: {
      const shown = g.c.pick([['grp'], ['qty'], ['grp', 'qty'], ['title'], ['day'], ['price']]);
      const withCount = g.c.chance(0.25);
      const having: Cond | undefined = g.c.chance(0.25) ? { kind: 'compare', op: '>=', left: count, right: { kind: 'literal', value: 1 } } : undefined;
      select = selectOf({ items: items(...shown.map((n) => [f(n), undefined] as const), ...(withCount ? [[count, 'n'] as const] : [])), from: tableFrom(facts, 'f'), groupBy: [{ kind: 'expr', expr: f('id') }], having, where: where(g, 'f') });
    }
  }
  const distinct = { ...select, distinct: true };
  return finish(g, distinct, (distinct.items as readonly { expr: Expr }[]).map((i) => i.expr));
}

function where(g: Gen, alias: 'f' | 'l'): Cond | undefined {
  if (!g.c.chance(0.4)) return undefined;
  const table = alias === 'f' ? g.tables.facts : g.tables.lines;
  return simpleRowCondition(g, tableScope(table, alias, alias === 'f'), true);
}

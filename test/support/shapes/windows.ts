import type { Expr, OrderKey, Select, WindowFn, WindowSpec } from './ast.js';
import { simpleRowCondition, whereCondition } from './conditions.js';
import { columnExpr, tableScope, type Gen } from './context.js';
import { col, finish, items, selectOf, tableFrom } from './grammar-common.js';
import { smallLiteral } from './expressions.js';
import type { TableDef } from './schema.js';
import { derivedFrom, type Built } from './selects.js';

// Window functions (issue 14 item 6): in the select list, in ORDER BY, inside a derived
// table (the "top N per group" shape), and over the groups of a grouped select; PARTITION BY
// the shard key (shard-local) or another column or nothing (every shard's rows at once), with
// and without ORDER BY and frames, written inline or through a named WINDOW. A window's value
// is deterministic only when its ORDER BY decides every row it depends on: ROW_NUMBER and ROWS
// frames get the table's unique key as their last ORDER BY key.

const FRAMES = ['ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW', 'ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING', 'ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING', 'RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW'];

interface Base {
  readonly table: TableDef;
  readonly alias: string;
  /** Shard key, unique key, other partition/order columns, value columns. */
  readonly key: string;
  readonly unique: string;
  readonly others: readonly string[];
  readonly values: readonly string[];
}

function base(g: Gen): Base {
  const { facts, lines } = g.tables;
  return g.c.chance(0.25)
    ? { table: lines, alias: 'l', key: 'factId', unique: 'id', others: ['qty', 'sku'], values: ['qty', 'price'] }
    : { table: facts, alias: 'f', key: 'id', unique: 'id', others: ['grp', 'qty', 'price'], values: ['qty', 'price', 'grp'] };
}

/** A window function over the rows of `b` (not grouped). */
export function windowOver(g: Gen, b: Base): { fn: WindowFn; arg: Expr | undefined; spec: WindowSpec } {
  const c = (name: string) => col(b.table, b.alias, name);
  const fn = g.c.weighted<WindowFn>([
    [2, 'ROW_NUMBER'],
    [1, 'RANK'],
    [1, 'DENSE_RANK'],
    [1.5, 'COUNT'],
    [1.5, 'SUM'],
    [1, 'MIN'],
    [1, 'MAX'],
    [0.5, 'AVG'],
  ]);
  const ranking = fn === 'ROW_NUMBER' || fn === 'RANK' || fn === 'DENSE_RANK';
  const partitionBy = g.c.weighted<readonly string[]>([
    [1, []],
    [1.5, [b.key]],
    [2, [b.others[0]!]],
    [0.5, [b.others[0]!, b.others[1]!]],
  ]).map(c);
  const orderBy: OrderKey[] = [];
  if (ranking || g.c.chance(0.5)) {
    const n = g.c.between(1, 2);
    for (let i = 0; i < n; i++) {
      const name = g.c.pick([...b.others, ...b.values]);
      if (!orderBy.some((k) => k.term.kind === 'expr' && k.term.expr.kind === 'column' && k.term.expr.column.name === name)) orderBy.push({ term: { kind: 'expr', expr: c(name) }, direction: g.c.pick([undefined, 'ASC', 'DESC'] as const) });
    }
  }
  const frame = !ranking && orderBy.length > 0 && g.c.chance(0.4) ? g.c.pick(FRAMES) : undefined;
  // ROW_NUMBER and a ROWS frame number peers: only a total order makes them one answer.
  if (fn === 'ROW_NUMBER' || frame?.startsWith('ROWS')) orderBy.push({ term: { kind: 'expr', expr: c(b.unique) }, direction: g.c.pick([undefined, 'DESC'] as const) });
  const arg = fn === 'COUNT' && g.c.chance(0.5) ? undefined : ranking ? undefined : c(g.c.pick(b.values));
  return { fn, arg, spec: { partitionBy, orderBy, frame } };
}

/** A window expression over `b`, inline or by a name added to `named`. */
function windowExpr(g: Gen, b: Base, named: { name: string; spec: WindowSpec }[]): Expr {
  const w = windowOver(g, b);
  if (g.c.chance(0.25)) {
    const name = `w${named.length + 1}`;
    named.push({ name, spec: w.spec });
    return { kind: 'window', fn: w.fn, arg: w.arg, over: { name } };
  }
  return { kind: 'window', fn: w.fn, arg: w.arg, over: w.spec };
}

/** A query with window functions, in one of four positions. */
export function buildWindows(g: Gen): Built {
  const position = g.c.weighted<string>([
    [3, 'select'],
    [2, 'derived'],
    [1, 'orderBy'],
    [1.5, 'groups'],
  ]);
  switch (position) {
    case 'derived':
      return inDerived(g);
    case 'orderBy':
      return inOrderBy(g);
    case 'groups':
      return overGroups(g);
  }
  return inSelectList(g);
}

function inSelectList(g: Gen): Built {
  const b = base(g);
  const scope = tableScope(b.table, b.alias, b.table === g.tables.facts);
  const named: { name: string; spec: WindowSpec }[] = [];
  const exprs: [Expr, string | undefined][] = [[col(b.table, b.alias, b.unique), undefined]];
  if (g.c.chance(0.5)) exprs.push([col(b.table, b.alias, b.others[0]!), undefined]);
  const n = g.c.between(1, 2);
  for (let i = 0; i < n; i++) exprs.push([windowExpr(g, b, named), `w${i + 1}`]);
  const select = selectOf({ items: items(...exprs), from: tableFrom(b.table, b.alias), where: g.c.chance(0.5) ? whereCondition(g, scope, false) : undefined, windows: named.length > 0 ? named : undefined });
  return finish(g, select, [col(b.table, b.alias, b.unique)]);
}

function inOrderBy(g: Gen): Built {
  const b = base(g);
  const scope = tableScope(b.table, b.alias, b.table === g.tables.facts);
  const w = windowOver(g, b);
  const unique = col(b.table, b.alias, b.unique);
  const select = selectOf({
    items: items([unique, undefined], [col(b.table, b.alias, b.values[0]!), undefined]),
    from: tableFrom(b.table, b.alias),
    where: g.c.chance(0.4) ? simpleRowCondition(g, scope, true) : undefined,
    orderBy: [
      { term: { kind: 'expr', expr: { kind: 'window', fn: w.fn, arg: w.arg, over: w.spec } }, direction: g.c.pick([undefined, 'DESC'] as const) },
      { term: { kind: 'expr', expr: unique }, direction: undefined },
    ],
  });
  return finish(g, select, [unique], { fixedOrder: true });
}

/** "Top N per group": a window in a derived table, filtered (and perhaps aggregated) outside. */
function inDerived(g: Gen): Built {
  const b = base(g);
  const scope = tableScope(b.table, b.alias, b.table === g.tables.facts);
  const named: { name: string; spec: WindowSpec }[] = [];
  const w = windowExpr(g, b, named);
  const partition = b.others[0]!;
  const inner = selectOf({
    items: items([col(b.table, b.alias, b.unique), 'id'], [col(b.table, b.alias, partition), 'p'], [w, 'w']),
    from: tableFrom(b.table, b.alias),
    where: g.c.chance(0.4) ? whereCondition(g, scope, false) : undefined,
    windows: named.length > 0 ? named : undefined,
  });
  const innerBuilt = finish(g, { ...inner, orderBy: [] }, [col(b.table, b.alias, b.unique)], { fixedOrder: true });
  const { from, scope: d } = derivedFrom({ ...innerBuilt, query: { ...(innerBuilt.query as Select), limit: undefined } }, 'd');
  const [id, p, wv] = d.columns.map(columnExpr) as [Expr, Expr, Expr];
  const filter = { kind: 'compare', op: g.c.pick(['<=', '=', '>'] as const), left: wv, right: smallLiteral(g) } as const;
  if (g.c.chance(0.35)) {
    const select = selectOf({ items: items([p, undefined], [{ kind: 'aggregate', fn: 'COUNT', arg: undefined, distinct: false }, 'n'], [{ kind: 'aggregate', fn: 'MAX', arg: wv, distinct: false }, 'm']), from, where: filter, groupBy: [{ kind: 'expr', expr: p }] });
    return finish(g, select, [p]);
  }
  const select = selectOf({ items: items([id, undefined], [p, undefined], [wv, undefined]), from, where: g.c.chance(0.8) ? filter : undefined });
  return finish(g, select, [id]);
}

/** Windows over the groups of a grouped select: `RANK() OVER (ORDER BY COUNT(*) DESC)`, `SUM(SUM(x)) OVER ()`. */
function overGroups(g: Gen): Built {
  const b = base(g);
  const key = col(b.table, b.alias, g.c.chance(0.3) ? b.key : b.others[0]!);
  const count: Expr = { kind: 'aggregate', fn: 'COUNT', arg: undefined, distinct: false };
  const sum: Expr = { kind: 'aggregate', fn: 'SUM', arg: col(b.table, b.alias, 'qty'), distinct: false };
  const agg = g.c.pick([count, sum]);
  const fn = g.c.weighted<WindowFn>([
    [2, 'RANK'],
    [1, 'DENSE_RANK'],
    [1, 'ROW_NUMBER'],
    [1.5, 'SUM'],
    [1, 'MAX'],
    [1, 'COUNT'],
  ]);
  const ranking = fn === 'RANK' || fn === 'DENSE_RANK' || fn === 'ROW_NUMBER';
  const orderBy: OrderKey[] = ranking || g.c.chance(0.4) ? [{ term: { kind: 'expr', expr: agg }, direction: g.c.pick([undefined, 'DESC'] as const) }] : [];
  if (fn === 'ROW_NUMBER') orderBy.push({ term: { kind: 'expr', expr: key }, direction: undefined });
  const win: Expr = { kind: 'window', fn, arg: ranking ? undefined : fn === 'COUNT' ? undefined : agg, over: { partitionBy: [], orderBy, frame: undefined } };
  const select = selectOf({ items: items([key, undefined], [agg, 'a'], [win, 'w']), from: tableFrom(b.table, b.alias), groupBy: [{ kind: 'expr', expr: key }] });
  return finish(g, select, [key]);
}

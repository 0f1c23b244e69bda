import type { Cond, Expr } from './ast.js';
import type { Gen } from './context.js';
import { and, col, selectOf, items, tableFrom } from './grammar-common.js';
import type { TableDef } from './schema.js';
import { buildSelect, type Built } from './selects.js';

// Row constructors (issue 14 item 6): `(a, b) [NOT] IN ((…), (…))`, `(a, b) = (…)` and
// `<>`, `(a, b) [NOT] IN (SELECT x, y …)`, with the shard key among the columns (it could
// prune) or not, with values taken from the data's own rows (NULLs included) so that they hit.

const PAIRS: Record<string, readonly (readonly [string, string])[]> = {
  shape_facts: [
    ['id', 'grp'],
    ['grp', 'qty'],
    ['id', 'qty'],
    ['qty', 'price'],
  ],
  shape_lines: [
    ['factId', 'qty'],
    ['id', 'factId'],
    ['qty', 'price'],
  ],
};

export function buildRowValues(g: Gen): Built {
  const built = buildSelect(g, 'top');
  const q = built.query;
  if (q.kind !== 'select' || q.from.kind !== 'table' || q.from.table.distribution !== 'sharded') return built;
  const cond = rowCondition(g, q.from.table, q.from.alias);
  const where = g.c.chance(0.2) && q.where ? ({ kind: 'logic', op: 'OR', items: [cond, q.where] } as const) : and(cond, q.where);
  return { ...built, query: { ...q, where } };
}

function value(g: Gen, v: unknown, params: boolean): Expr {
  const x = v === null || v === undefined ? null : typeof v === 'number' ? v : Number(v);
  return params && g.c.chance(0.4) ? { kind: 'param', value: x } : { kind: 'literal', value: x };
}

function rowCondition(g: Gen, table: TableDef, alias: string): Cond {
  const [a, b] = g.c.pick(PAIRS[table.name]!);
  const left = [col(table, alias, a), col(table, alias, b)];
  const rows = table.name === 'shape_facts' ? g.data.facts : g.data.lines;
  const row = (): Expr[] => {
    const r = g.c.pick(rows);
    // Sometimes one value of another row: a pair that does not exist.
    const other = g.c.chance(0.2) ? g.c.pick(rows) : r;
    return [value(g, r[a], true), value(g, other[b], true)];
  };
  const form = g.c.weighted<string>([
    [3, 'in'],
    [1.5, 'compare'],
    [1.5, 'select'],
  ]);
  if (form === 'compare') return { kind: 'rowCompare', op: g.c.chance(0.75) ? '=' : '<>', left, right: row() };
  if (form === 'select') {
    const { facts, lines } = g.tables;
    const other = table === facts ? lines : facts;
    const oa = g.subAlias(other === facts ? 'f' : 'l');
    // Paired on the shard keys (facts.id with lines.factId) or on plain columns.
    const keyed = a === 'id' && table === facts ? ['factId', 'qty'] : a === 'factId' ? ['id', 'qty'] : ['qty', 'qty'];
    const inner = selectOf({ items: items([col(other, oa, keyed[0]!), undefined], [col(other, oa, keyed[1]!), undefined]), from: tableFrom(other, oa), where: g.c.chance(0.5) ? { kind: 'compare', op: '>', left: col(other, oa, 'qty'), right: { kind: 'literal', value: 1 } } : undefined });
    const lhs = keyed[0] === 'qty' ? [col(table, alias, 'qty'), col(table, alias, 'qty')] : [col(table, alias, a), col(table, alias, 'qty')];
    return { kind: 'rowInSelect', left: lhs, query: inner, negated: g.c.chance(0.25) };
  }
  return { kind: 'rowIn', left, rows: Array.from({ length: g.c.between(1, 4) }, row), negated: g.c.chance(0.25) };
}

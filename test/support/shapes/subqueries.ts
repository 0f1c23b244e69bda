import type { AggregateFn, Cond, Expr, Select } from './ast.js';
import { simpleRowCondition } from './conditions.js';
import { tableScope, type Gen, type Scope } from './context.js';
import type { TableDef } from './schema.js';

// Subqueries in WHERE and in the select list, correlated with the outer fact table by the
// shard key (rows on the same shard), by a broadcast table's key, by another column, or not
// at all. Only the first two can be answered shard by shard; the others need every shard's
// rows, and the plugin must refuse them rather than answer per shard.

function column(table: TableDef, alias: string, name: string): Expr {
  const def = table.columns.find((c) => c.name === name);
  if (!def) throw new Error(`no column ${table.name}.${name}`);
  return { kind: 'column', table: alias, column: def };
}

function select(items: Expr[], table: TableDef, alias: string, where: Cond | undefined): Select {
  return {
    kind: 'select',
    distinct: false,
    items: items.map((expr) => ({ expr, alias: undefined })),
    from: { kind: 'table', table, alias },
    joins: [],
    where,
    groupBy: [],
    having: undefined,
    orderBy: [],
    limit: undefined,
  };
}

function and(...conds: (Cond | undefined)[]): Cond | undefined {
  const items = conds.filter((c): c is Cond => c !== undefined);
  return items.length === 0 ? undefined : items.length === 1 ? items[0] : { kind: 'logic', op: 'AND', items };
}

type Correlation = 'key' | 'broadcast' | 'nonkey' | 'none';

/** The inner table and the correlation condition for one correlation kind. */
function inner(g: Gen, outer: string, correlation: Correlation): { table: TableDef; alias: string; on: Cond | undefined } {
  const { facts, lines, refs } = g.tables;
  switch (correlation) {
    case 'key': {
      const alias = g.subAlias('l');
      return { table: lines, alias, on: { kind: 'compare', op: '=', left: column(lines, alias, 'factId'), right: column(facts, outer, 'id') } };
    }
    case 'broadcast': {
      const alias = g.subAlias('r');
      return { table: refs, alias, on: { kind: 'compare', op: '=', left: column(refs, alias, 'id'), right: column(facts, outer, 'grp') } };
    }
    case 'nonkey': {
      const self = g.c.chance(0.4);
      const alias = g.subAlias(self ? 'f' : 'l');
      const table = self ? facts : lines;
      return { table, alias, on: { kind: 'compare', op: '=', left: column(table, alias, 'qty'), right: column(facts, outer, 'qty') } };
    }
    case 'none': {
      const table = g.c.pick([lines, facts, refs]);
      const alias = g.subAlias(table === lines ? 'l' : table === facts ? 'f' : 'r');
      return { table, alias, on: undefined };
    }
  }
}

function filterOf(g: Gen, table: TableDef, alias: string, chance: number): Cond | undefined {
  return g.c.chance(chance) ? simpleRowCondition(g, tableScope(table, alias, false), true) : undefined;
}

function correlation(g: Gen): Correlation {
  return g.c.weighted<Correlation>([
    [3, 'key'],
    [1.5, 'broadcast'],
    [1, 'nonkey'],
    [2, 'none'],
  ]);
}

/** A WHERE condition with a subquery over the outer fact table `scope.facts`. */
export function subqueryCondition(g: Gen, scope: Scope): Cond {
  const outer = scope.facts!;
  const { facts, lines, refs } = g.tables;
  const form = g.c.weighted<string>([
    [2, 'exists'],
    [2, 'in'],
    [1.5, 'scalar'],
  ]);
  const negated = g.c.chance(0.3);
  switch (form) {
    case 'exists': {
      const corr = correlation(g);
      const { table, alias, on } = inner(g, outer, corr);
      return { kind: 'exists', query: select([{ kind: 'literal', value: 1 }], table, alias, and(on, filterOf(g, table, alias, corr === 'none' ? 0.9 : 0.5))), negated };
    }
    case 'in': {
      const pairing = g.c.weighted<string>([
        [3, 'key'],
        [1.5, 'broadcast'],
        [1, 'self'],
        [1.5, 'nonkey'],
      ]);
      const [left, table, prefix, name] =
        pairing === 'key' ? ['id', lines, 'l', 'factId'] : pairing === 'broadcast' ? ['grp', refs, 'r', 'id'] : pairing === 'self' ? ['id', facts, 'f', 'id'] : ['qty', lines, 'l', 'qty'];
      const alias = g.subAlias(prefix);
      return { kind: 'inSelect', arg: column(facts, outer, left), query: select([column(table, alias, name)], table, alias, filterOf(g, table, alias, 0.6)), negated };
    }
  }
  const corr = correlation(g);
  const sub = scalarSelect(g, outer, corr);
  const left = column(facts, outer, corr === 'broadcast' ? 'qty' : g.c.pick(['qty', 'price', 'grp']));
  return { kind: 'compare', op: g.c.pick(['=', '<', '>', '>='] as const), left, right: { kind: 'scalar', query: sub } };
}

/** A subquery that yields one row and one numeric column (an aggregate, or a broadcast row by its key). */
function scalarSelect(g: Gen, outer: string, corr: Correlation): Select {
  const { table, alias, on } = inner(g, outer, corr);
  const numeric = table.columns.filter((c) => (c.type === 'int' || c.type === 'decimal') && !c.unique && !c.key);
  if (corr === 'broadcast' && g.c.chance(0.5)) return select([column(table, alias, 'weight')], table, alias, on);
  const fn = g.c.pick<AggregateFn>(['COUNT', 'MAX', 'MIN', 'SUM', 'AVG']);
  const arg = fn === 'COUNT' && g.c.chance(0.6) ? undefined : ({ kind: 'column', table: alias, column: g.c.pick(numeric) } as const);
  return select([{ kind: 'aggregate', fn, arg, distinct: false }], table, alias, and(on, filterOf(g, table, alias, 0.3)));
}

/** A scalar subquery for the select list of a row select over `scope.facts`. */
export function scalarItem(g: Gen, scope: Scope): Expr {
  const corr = correlation(g);
  if (corr === 'broadcast' && g.c.chance(0.5)) {
    const alias = g.subAlias('r');
    const refs = g.tables.refs;
    return { kind: 'scalar', query: select([column(refs, alias, 'name')], refs, alias, { kind: 'compare', op: '=', left: column(refs, alias, 'id'), right: column(g.tables.facts, scope.facts!, 'grp') }) };
  }
  return { kind: 'scalar', query: scalarSelect(g, scope.facts!, corr) };
}

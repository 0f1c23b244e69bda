import type { Cond, Expr, FromItem, Select, SelectItem, Typed } from './ast.js';
import { derivedColumns, type Gen, type ScopeColumn } from './context.js';
import { limitClause, orderClause } from './order-by.js';
import { exprText } from './print.js';
import type { TableDef } from './schema.js';
import type { Built } from './selects.js';
import { outputsOf, starItems, typeOf } from './typing.js';

// Small pieces the grammar builders share: columns by name, AND, a select with defaults, a
// column of a CTE or derived table, and the ORDER BY / LIMIT / judging step every builder ends with.

/** Column `name` of `table` under `alias`. */
export function col(table: TableDef, alias: string, name: string): Expr {
  const def = table.columns.find((c) => c.name === name);
  if (!def) throw new Error(`no column ${table.name}.${name}`);
  return { kind: 'column', table: alias, column: def };
}

/** The conditions joined by AND (undefined when there is none). */
export function and(...conds: (Cond | undefined)[]): Cond | undefined {
  const items = conds.filter((c): c is Cond => c !== undefined);
  return items.length === 0 ? undefined : items.length === 1 ? items[0] : { kind: 'logic', op: 'AND', items };
}

/** A select with no clauses beyond `parts`. */
export function selectOf(parts: Partial<Select> & Pick<Select, 'items' | 'from'>): Select {
  return { kind: 'select', distinct: false, joins: [], where: undefined, groupBy: [], having: undefined, orderBy: [], limit: undefined, ...parts };
}

/** Items with the given aliases (undefined: none). */
export function items(...pairs: (readonly [Expr, string | undefined])[]): SelectItem[] {
  return pairs.map(([expr, alias]) => ({ expr, alias }));
}

/** A column of a CTE or derived table `alias` (its values as exact as `typed` says). */
export function virtualColumn(alias: string, name: string, typed: Typed): ScopeColumn {
  return derivedColumns(alias, [{ name, typed, samples: [], overflowRisk: false }])[0]!;
}

/** The FROM item of a base table. */
export function tableFrom(table: TableDef, alias: string): FromItem {
  return { kind: 'table', table, alias };
}

/**
 * The last step of a builder: ORDER BY (perhaps; `fixedOrder` instead when the builder wrote
 * its own), LIMIT only under a total order, and what the harness needs to judge the answer.
 * `unique` identifies a row of the result ([] = at most one row) when known.
 */
export function finish(g: Gen, draft: Select, unique: readonly Expr[] | undefined, opts: { fixedOrder?: boolean; extra?: () => Expr } = {}): Built {
  let select = draft;
  const listed = select.items === '*' ? starItems(select.from) : select.items;
  const itemTexts = listed.map((i) => exprText(i.expr, g.dialect));
  const outputs = outputsOf(select, g.dialect);
  let ordered: boolean;
  let query = select;
  if (opts.fixedOrder) {
    // Keys whose values may differ in their last digits (a float SUM, AVG on SQLite) order nothing reliably: dropped.
    query = { ...select, orderBy: select.orderBy.filter((k) => k.term.kind !== 'expr' || typeOf(k.term.expr, g.dialect).exact) };
    select = query;
    const texts = new Set(select.orderBy.map((k) => (k.term.kind === 'expr' ? exprText(k.term.expr, g.dialect) : k.term.kind === 'position' ? itemTexts[k.term.index - 1] : listed.find((i) => i.alias === (k.term as { name: string }).name) ? exprText(listed.find((i) => i.alias === (k.term as { name: string }).name)!.expr, g.dialect) : '')));
    ordered = unique !== undefined && unique.every((u) => texts.has(exprText(u, g.dialect)));
  } else {
    const order = orderClause(g, {
      items: listed,
      itemTexts,
      outputs,
      onlyItems: select.distinct,
      exprTerms: !(select.distinct && g.dialect === 'mysql'),
      unique,
      extra: opts.extra ?? (() => listed[0]!.expr),
    });
    ordered = order.ordered || (unique !== undefined && unique.length === 0);
    query = { ...select, orderBy: order.keys };
  }
  const limit = ordered && select.limit === undefined && g.c.chance(g.cls.limit) ? limitClause(g) : select.limit;
  query = { ...query, limit };
  return {
    query,
    outputs: query.orderBy.length > 0 ? outputsOf(query, g.dialect) : outputs,
    ordered,
    uniqueItems: unique?.map((u) => exprText(u, g.dialect)),
    itemTexts,
    itemNames: listed.map((i, k) => i.alias ?? (i.expr.kind === 'column' ? i.expr.column.name : itemTexts[k]!)),
  };
}

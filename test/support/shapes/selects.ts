import type { Expr, FromItem, Join, Query, Select, SelectItem, Term, Typed } from './ast.js';
import { conditionOf, simpleRowCondition, whereCondition } from './conditions.js';
import { columnExpr, derivedColumns, tableScope, type Gen, type Scope } from './context.js';
import { aggregateExpr, overflowRisk, pickColumn, rowExpr, type AggregateLevel } from './expressions.js';
import { isConstant, limitClause, orderClause } from './order-by.js';
import { exprText } from './print.js';
import type { TableDef } from './schema.js';
import { insertAt, nameItems } from './select-items.js';
import { scalarItem } from './subqueries.js';
import { containsAggregate, outputsOf, someExpr, starItems, typeOf } from './typing.js';

// Selects: FROM a table, a binding or broadcast join, or a derived table; row-level or
// aggregate; DISTINCT; WHERE; GROUP BY; HAVING; then ORDER BY and LIMIT (order-by.ts).

/** A select (or union) with what ORDER BY and the outer query need to know about it. */
export interface Built {
  readonly query: Query;
  readonly outputs: readonly Typed[];
  readonly ordered: boolean;
  /** Texts of the select items that identify a result row ([] = at most one row), if known. */
  readonly uniqueItems: readonly string[] | undefined;
  readonly itemTexts: readonly string[];
  readonly itemNames: readonly string[];
}

export type Role = 'top' | 'derived';

/** A derived table `(inner) alias` and the scope its columns make (with its row identity, when known). */
export function derivedFrom(inner: Built, alias: string): { from: FromItem; scope: Scope } {
  const select = inner.query as Select;
  const items = select.items as readonly SelectItem[];
  const columns = derivedColumns(
    alias,
    items.map((item, i) => ({ name: inner.itemNames[i]!, typed: inner.outputs[i]!, samples: item.expr.kind === 'column' ? item.expr.column.samples : [], overflowRisk: overflowRisk(item.expr) })),
  );
  const unique = inner.uniqueItems?.map((text) => inner.itemTexts.indexOf(text));
  const scope: Scope = { columns, unique: unique === undefined || unique.some((i) => i < 0) ? undefined : unique.map((i) => columnExpr(columns[i]!)), facts: undefined };
  return { from: { kind: 'derived', query: select, alias }, scope };
}

/** The FROM clause: a base table, perhaps joined, or a derived table (nested ones too, `ShapeClass.nestedDerived`). */
function fromClause(g: Gen, role: Role, depth: number): { from: FromItem; joins: Join[]; scope: Scope; derived?: Built } {
  const { facts, lines, refs } = g.tables;
  if (role === 'top' ? g.c.chance(g.cls.derived) : depth < 2 && g.c.chance(g.cls.nestedDerived ?? 0)) {
    const inner = buildSelect(g, 'derived', depth + 1);
    const { from, scope } = derivedFrom(inner, depth === 0 ? 'd' : `d${depth}`);
    return { from, joins: [], scope, derived: inner };
  }
  const base = g.c.weighted<TableDef>([
    [8, facts],
    [1.2, lines],
    [0.4, refs],
  ]);
  const alias = base === facts ? 'f' : base === lines ? 'l' : 'r';
  let scope = tableScope(base, alias, base === facts);
  const joins: Join[] = [];
  const join = (table: TableDef, joinAlias: string, on: (s: Scope) => Expr[], unique: boolean) => {
    const type = g.c.chance(0.35) ? 'LEFT' : 'INNER';
    const joined = tableScope(table, joinAlias, table === facts);
    const [left, right] = on(joined);
    let cond: Join['on'] = { kind: 'compare', op: '=', left: left!, right: right! };
    if (g.c.chance(0.2)) cond = { kind: 'logic', op: 'AND', items: [cond, simpleRowCondition(g, joined, true)] };
    joins.push({ type, item: { kind: 'table', table, alias: joinAlias }, on: cond });
    scope = {
      columns: [...scope.columns, ...joined.columns],
      unique: unique ? [...(scope.unique ?? []), ...(joined.unique ?? [])] : scope.unique,
      facts: scope.facts ?? joined.facts,
    };
  };
  const col = (s: Scope, table: string, name: string) => columnExpr(s.columns.find((c) => c.table === table && c.def.name === name)!);
  // `JOIN (first JOIN second ON inner) ON outer`, as TypeORM writes leftJoinAndSelect then innerJoinAndSelect of the child.
  const group = (first: [TableDef, string], second: [TableDef, string], inner: (s: Scope) => Expr[], outer: (s: Scope) => Expr[], unique: readonly string[]) => {
    const type = g.c.chance(0.65) ? 'LEFT' : 'INNER';
    const innerType = g.c.chance(0.7) ? 'INNER' : 'LEFT';
    const a = tableScope(first[0], first[1], first[0] === facts);
    const b = tableScope(second[0], second[1], second[0] === facts);
    const both: Scope = { columns: [...scope.columns, ...a.columns, ...b.columns], unique: undefined, facts: undefined };
    const [il, ir] = inner(both);
    const [ol, or] = outer(both);
    joins.push({
      type,
      item: { kind: 'table', table: first[0], alias: first[1] },
      on: { kind: 'compare', op: '=', left: ol!, right: or! },
      inner: [{ type: innerType, item: { kind: 'table', table: second[0], alias: second[1] }, on: { kind: 'compare', op: '=', left: il!, right: ir! } }],
    });
    const ids = [a, b].flatMap((t) => (unique.includes(t.columns[0]!.table) ? (t.unique ?? []) : []));
    scope = { columns: both.columns, unique: scope.unique && [...scope.unique, ...ids], facts: scope.facts ?? a.facts ?? b.facts };
  };
  if (base === facts && g.c.chance(g.cls.join)) {
    const kind = g.c.weighted<string>([
      [3, 'binding'],
      [2, 'broadcast'],
      [1, 'both'],
      [0.4, 'nonbinding'],
      [0.8, 'group'],
      [0.2, 'group-nonbinding'],
    ]);
    if (kind === 'binding' || kind === 'both') join(lines, 'l', (j) => [col(j, 'l', 'factId'), col(scope, 'f', 'id')], true);
    if (kind === 'broadcast' || kind === 'both') join(refs, 'r', (j) => [col(j, 'r', 'id'), col(scope, 'f', 'grp')], false);
    if (kind === 'nonbinding') join(lines, 'l', (j) => [col(j, 'l', 'qty'), col(scope, 'f', 'qty')], true);
    if (kind === 'group') group([lines, 'l'], [refs, 'r'], (s) => [col(s, 'r', 'id'), col(s, 'l', 'qty')], (s) => [col(s, 'l', 'factId'), col(s, 'f', 'id')], ['l']);
    if (kind === 'group-nonbinding') group([lines, 'l'], [refs, 'r'], (s) => [col(s, 'r', 'id'), col(s, 'l', 'qty')], (s) => [col(s, 'l', 'qty'), col(s, 'f', 'qty')], ['l']);
  } else if (base === lines && g.c.chance(g.cls.join)) {
    if (g.c.chance(0.7)) join(facts, 'f', (j) => [col(j, 'f', 'id'), col(scope, 'l', 'factId')], true);
    else group([facts, 'f'], [refs, 'r'], (s) => [col(s, 'r', 'id'), col(s, 'f', 'grp')], (s) => [col(s, 'f', 'id'), col(s, 'l', 'factId')], ['f']);
  } else if (base === refs && g.c.chance(g.cls.join * 0.5)) {
    // The broadcast refs keep their rows without facts: every shard would return them (refused, or answered where a WHERE rejects NULL).
    group([facts, 'f'], [lines, 'l'], (s) => [col(s, 'l', 'factId'), col(s, 'f', 'id')], (s) => [col(s, 'f', 'grp'), col(s, 'r', 'id')], ['f', 'l']);
  }
  return { from: { kind: 'table', table: base, alias }, joins, scope };
}

export function buildSelect(g: Gen, role: Role, depth = 0): Built {
  const { from, joins, scope } = fromClause(g, role, depth);
  const aggregateSelect = g.c.chance(g.cls.aggregate);
  const grouped = aggregateSelect && g.c.chance(g.cls.groupBy);
  const exactRow = { params: false, exact: true };

  const groupKeys: Expr[] = [];
  if (grouped) {
    const n = g.c.chance(0.3) ? 2 : 1;
    for (let i = 0; i < n; i++) {
      const expr = notConstant(g, scope, rowExpr(g, scope, 'any', 1, exactRow));
      const key = g.c.chance(0.7) || !typeOf(expr, g.dialect).exact ? columnExpr(pickColumn(g, scope, 'any', { exact: true })!) : expr;
      if (!groupKeys.some((k) => exprText(k, g.dialect) === exprText(key, g.dialect))) groupKeys.push(key);
    }
  }
  const level: AggregateLevel = { scope, groupKeys, exact: false };

  // select list
  let exprs: Expr[] = [];
  let star = false;
  if (aggregateSelect) {
    for (const k of groupKeys) if (g.c.chance(0.85)) exprs.push(k);
    const n = g.c.between(1, 3);
    for (let i = 0; i < n; i++) insertAt(g, exprs, aggregateExpr(g, level, 'any', 0));
    // Without GROUP BY, only an aggregate in the select list makes it one row.
    if (!grouped && !exprs.some(containsAggregate)) exprs.push({ kind: 'aggregate', fn: 'COUNT', arg: undefined, distinct: false });
  } else if (role === 'top' && joins.length === 0 && from.kind === 'table' && g.c.chance(0.04)) {
    star = true;
  } else {
    const n = g.c.between(1, 4);
    for (let i = 0; i < n; i++) {
      const sub = role === 'top' && scope.facts !== undefined && g.c.chance(g.cls.selectSubquery);
      exprs.push(sub ? scalarItem(g, scope) : rowExpr(g, scope, 'any', 0, { params: true, exact: false }));
    }
    // A derived table usually carries its row identity, so that the outer query can order by it.
    if (role === 'derived' && scope.unique && g.c.chance(0.7)) exprs = [...scope.unique.filter((u) => !exprs.some((e) => exprText(e, g.dialect) === exprText(u, g.dialect))), ...exprs];
  }
  // The outer query needs one exactly comparable column of a derived table to group and order by.
  if (role === 'derived' && !exprs.some((e) => typeOf(e, g.dialect).exact)) exprs.push({ kind: 'literal', value: 1 });
  const named = star ? undefined : nameItems(g, exprs, role === 'derived');
  const items: readonly SelectItem[] | '*' = named ? named.items : '*';
  const listed = items === '*' ? starItems(from) : items;

  const where = g.c.chance(0.75) ? whereCondition(g, scope, role === 'top' && from.kind === 'table') : undefined;
  const draft: Select = { kind: 'select', distinct: false, items, from, joins, where, groupBy: [], having: undefined, orderBy: [], limit: undefined };
  const outputsBefore = outputsOf(draft, g.dialect);
  // MariaDB 10.11 answers `SELECT DISTINCT 1 … LIMIT 25, 1` with a row (it drops the offset
  // when every item is a constant): such a DISTINCT is not generated.
  // MariaDB 10.11 also answers `SELECT DISTINCT AVG(id), AVG(yr) / 1 … GROUP BY price` with the
  // last group's AVG(id) in every row, and `SELECT DISTINCT COUNT(*) * 10 … GROUP BY k` with
  // fewer values than there are (a DISTINCT over an expression of aggregates): not generated either.
  const avgInsideExpression = g.dialect === 'mysql' && exprs.some((e) => e.kind !== 'aggregate' && someExpr(e, (x) => x.kind === 'aggregate'));
  const distinct = !star && g.c.chance(g.cls.distinct) && outputsBefore.every((o) => o.exact) && exprs.some((e) => !isConstant(e)) && !avgInsideExpression;

  const itemTexts = listed.map((i) => exprText(i.expr, g.dialect));
  const groupBy: Term[] = groupKeys.map((k) => {
    const at = itemTexts.indexOf(exprText(k, g.dialect));
    if (at < 0) return { kind: 'expr', expr: k };
    const form = g.c.weighted<string>([
      [3, 'expr'],
      [1, 'position'],
      [listed[at]!.alias ? 1 : 0, 'alias'],
    ]);
    return form === 'position' ? { kind: 'position', index: at + 1 } : form === 'alias' ? { kind: 'alias', name: listed[at]!.alias! } : { kind: 'expr', expr: k };
  });

  let having: Select['having'];
  if (aggregateSelect && g.c.chance(grouped ? g.cls.having : g.cls.having * 0.1)) {
    const aliases = listed.filter((i) => i.alias !== undefined && containsAggregate(i.expr)).map((i) => ({ name: i.alias!, of: i.expr }));
    // MariaDB resolves a column in HAVING only through the select list: other group keys stay out.
    const selectedKeys = groupKeys.filter((k) => k.kind === 'column' && listed.some((i) => i.expr.kind === 'column' && exprText(i.expr, g.dialect) === exprText(k, g.dialect)));
    having = conditionOf(g, { ...level, groupKeys: selectedKeys, exact: true, aliases }, 0);
  }

  const select: Select = { ...draft, distinct, groupBy, having };
  const outputs = outputsOf(select, g.dialect);
  const uniqueItems: readonly string[] | undefined =
    aggregateSelect && !grouped ? [] : grouped ? groupKeys.map((k) => exprText(k, g.dialect)) : distinct ? itemTexts : scope.unique?.map((u) => exprText(u, g.dialect));
  const uniqueExprs: readonly Expr[] | undefined = aggregateSelect && !grouped ? [] : grouped ? groupKeys : distinct ? listed.map((i) => i.expr) : scope.unique;

  const wantsOrder = role === 'top' || g.c.chance(g.cls.derivedTopN ?? 0.2);
  const order = wantsOrder
    ? orderClause(g, {
        items: listed,
        itemTexts,
        outputs,
        onlyItems: distinct,
        // MariaDB 10.11 answers `SELECT DISTINCT LOWER(CASE … END) AS v, g … ORDER BY g DESC,
        // LOWER(CASE … END) LIMIT 5` with one row per g (the same ORDER BY by alias is right):
        // a DISTINCT ORDER BY repeats no item as an expression there.
        exprTerms: !(distinct && g.dialect === 'mysql'),
        unique: uniqueExprs,
        extra: () => (aggregateSelect ? aggregateExpr(g, { ...level, exact: true }, 'any', 1) : extraRowKey(g, scope)),
      })
    : { keys: [], ordered: uniqueItems !== undefined && uniqueItems.length === 0 };
  // A derived table keeps an ORDER BY only as a top-N (with LIMIT): otherwise its order means nothing.
  const limit = order.ordered && (role === 'top' ? g.c.chance(g.cls.limit) : order.keys.length > 0) ? limitClause(g) : undefined;
  const orderBy = role === 'derived' && !limit ? [] : order.keys;
  const query: Select = { ...select, orderBy, limit };
  return {
    query,
    // How a column compares may depend on the ORDER BY too (`Typed.serverRounded`).
    outputs: orderBy.length > 0 ? outputsOf(query, g.dialect) : outputs,
    ordered: order.ordered,
    uniqueItems,
    itemTexts,
    itemNames: named ? named.names : listed.map((i) => (i.expr.kind === 'column' ? i.expr.column.name : '')),
  };
}

/** An ORDER BY expression of a row select that need not be in the select list. */
function extraRowKey(g: Gen, scope: Scope): Expr {
  if (g.c.chance(0.2)) {
    const c = pickColumn(g, scope, 'any', { exact: true });
    if (c) return { kind: 'truth', cond: { kind: 'isNull', arg: columnExpr(c), negated: false } };
  }
  return notConstant(g, scope, rowExpr(g, scope, 'any', 1, { params: false, exact: true }));
}

/** A constant is no ORDER BY / GROUP BY term (an integer there is a position): use a column instead. */
function notConstant(g: Gen, scope: Scope, e: Expr): Expr {
  if (!isConstant(e)) return e;
  return columnExpr(pickColumn(g, scope, 'any', { exact: true }) ?? scope.columns[0]!);
}


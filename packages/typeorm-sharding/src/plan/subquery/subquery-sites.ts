/**
 * Every parenthesised SELECT of a statement, in the order its `(` appears in the text, with
 * how the statement uses it: a derived table, the argument of EXISTS, the list of an IN, a
 * value compared with something, or a plain value. `subquerySpans` finds the same SELECTs in
 * the text in the same order, so the n-th site is the n-th span.
 */
import type { DeleteNode, FromItem, SelectNode, SqlNode, UpdateNode } from '../nodes/sql-node.js';
import { childrenOf } from '../nodes/sql-tree.js';

/** Operators whose operands SQL compares (each converts them to one comparison type). */
const COMPARISONS = new Set(['=', '==', '<>', '!=', '<', '<=', '>', '>=', '<=>', 'IS', 'IS NOT', 'LIKE', 'NOT LIKE', 'GLOB', 'NOT GLOB']);

/** How a statement uses one parenthesised SELECT. */
export type SiteUse =
  /** `FROM (SELECT …) alias`. */
  | 'derived'
  /** `EXISTS (SELECT …)` (also under NOT). */
  | 'exists'
  /** `x IN (SELECT …)` / `x NOT IN (SELECT …)`: a list of values. */
  | 'in'
  /** `ANY` / `ALL` / `SOME (SELECT …)`. */
  | 'quantified'
  /** A scalar subquery: one value (NULL when it returns no row). */
  | 'scalar';

/** One parenthesised SELECT and its place in the statement. */
export interface SubquerySite {
  readonly query: SelectNode;
  readonly use: SiteUse;
  /** Text position: index among the parenthesised SELECTs of the statement. */
  readonly ordinal: number;
  /** The nearest site this one sits inside; undefined at the statement's own level. */
  readonly parent: SubquerySite | undefined;
  /**
   * For `in` and `scalar`: the expressions the value is compared with, when the statement
   * compares it (`x` of `x IN (SELECT …)`, `x = (SELECT …)`, `BETWEEN` bounds); an empty list
   * when it is compared with something not modelled (CASE); undefined when it is used as a
   * value (a select item, an argument, arithmetic).
   */
  readonly partners: readonly SqlNode[] | undefined;
  /** A scalar subquery written as an item of an IN list (`x IN (1, (SELECT …))`). */
  readonly inListItem: boolean;
  /** The select (or the UPDATE/DELETE seen as one) whose FROM names the partners' tables. */
  readonly scope: SelectNode;
  /** It sits in a select item without alias, whose result column is named after its text. */
  readonly inUnaliasedItem: boolean;
  /** It is the whole value of an UPDATE's `SET col = (SELECT …)`: stored, converted to the column's type. */
  readonly stored: boolean;
}

interface Context {
  readonly scope: SelectNode;
  readonly parent: SubquerySite | undefined;
  readonly unaliased?: boolean;
  readonly stored?: boolean;
}

/** The sites of a SELECT, UPDATE or DELETE, in text order. */
export function subquerySitesOf(statement: SelectNode | UpdateNode | DeleteNode): SubquerySite[] {
  const sites: SubquerySite[] = [];
  const add = (query: SelectNode, use: SiteUse, ctx: Context, partners?: readonly SqlNode[], inListItem = false): SubquerySite => {
    const site: SubquerySite = { query, use, ordinal: sites.length, parent: ctx.parent, partners, inListItem, scope: ctx.scope, inUnaliasedItem: ctx.unaliased === true, stored: ctx.stored === true };
    sites.push(site);
    return site;
  };

  const visitSelect = (select: SelectNode, parent: SubquerySite | undefined): void => {
    const ctx: Context = { scope: select, parent };
    for (const item of select.items) visitExpr(item.expr, item.alias === undefined ? { ...ctx, unaliased: true } : ctx);
    visitFrom(select.from, ctx);
    visitExpr(select.where, ctx);
    for (const g of select.groupBy) visitExpr(g, ctx);
    visitExpr(select.having, ctx);
    for (const o of select.orderBy) visitExpr(o.expr, ctx);
    if (select.compound) visitSelect(select.compound.next, parent);
  };

  const visitFrom = (from: readonly FromItem[], ctx: Context): void => {
    for (const item of from) {
      if (item.kind === 'derived') visitSelect(item.query, add(item.query, 'derived', ctx));
      visitExpr(item.on, ctx);
    }
  };

  const subquery = (node: SqlNode, use: SiteUse, ctx: Context, partners?: readonly SqlNode[], inListItem = false): void => {
    if (node.kind !== 'subquery') return;
    visitSelect(node.query, add(node.query, use, ctx, partners, inListItem));
  };

  /** Visits `node`; `compared` holds what it is compared with when its parent compares it. */
  const visitExpr = (node: SqlNode | undefined, given: Context, compared?: readonly SqlNode[], inListItem = false): void => {
    if (!node) return;
    if (node.kind === 'subquery') return subquery(node, 'scalar', given, compared, inListItem);
    // Only a SET value that is the subquery itself is stored as it is.
    const ctx = given.stored ? { ...given, stored: false } : given;
    if (node.kind === 'binary') return visitBinary(node.op, node.left, node.right, ctx);
    // node-sql-parser reads `NOT EXISTS (…)` as one unary operator.
    if (node.kind === 'unary' && node.op === 'NOT EXISTS') return node.operand.kind === 'subquery' ? subquery(node.operand, 'exists', ctx) : visitExpr(node.operand, ctx);
    if (node.kind === 'function' && node.args.length === 1 && node.args[0]!.kind === 'subquery') {
      if (node.name === 'EXISTS') return subquery(node.args[0]!, 'exists', ctx);
      if (node.name === 'ANY' || node.name === 'ALL' || node.name === 'SOME') return subquery(node.args[0]!, 'quantified', ctx);
    }
    if (node.kind === 'case') {
      // The operand is compared with every WHEN: a comparison whose other side is not modelled.
      visitExpr(node.operand, ctx, node.operand ? [] : undefined);
      for (const b of node.branches) {
        visitExpr(b.when, ctx, node.operand ? [] : undefined);
        visitExpr(b.then, ctx);
      }
      return visitExpr(node.otherwise, ctx);
    }
    for (const child of childrenOf(node)) visitExpr(child, ctx);
  };

  const visitBinary = (op: string, left: SqlNode, right: SqlNode, ctx: Context): void => {
    if (op === 'IN' || op === 'NOT IN') {
      const items = right.kind === 'list' ? right.items : [];
      const single = items.length === 1 && items[0]!.kind === 'subquery';
      // The left side is compared with each item (an IN list of values: with that list).
      visitExpr(left, ctx, right.kind === 'list' ? (single ? [] : items) : [right]);
      if (single) return subquery(items[0]!, 'in', ctx, [left]);
      for (const item of items) visitExpr(item, ctx, [left], true);
      if (right.kind !== 'list') visitExpr(right, ctx);
      return;
    }
    if (op === 'BETWEEN' || op === 'NOT BETWEEN') {
      const bounds = right.kind === 'list' ? right.items : [right];
      visitExpr(left, ctx, bounds);
      for (const bound of bounds) visitExpr(bound, ctx, [left]);
      return;
    }
    const compares = COMPARISONS.has(op);
    visitExpr(left, ctx, compares ? [right] : undefined);
    visitExpr(right, ctx, compares ? [left] : undefined);
  };

  if (statement.kind === 'select') {
    visitSelect(statement, undefined);
  } else {
    const scope = writeScopeOf(statement);
    const ctx: Context = { scope, parent: undefined };
    if (statement.kind === 'update') {
      visitFrom(statement.tables, ctx);
      for (const s of statement.set) visitExpr(s.value, { ...ctx, stored: true });
    } else {
      visitFrom(statement.from, ctx);
    }
    visitExpr(statement.where, ctx);
    for (const o of statement.orderBy) visitExpr(o.expr, ctx);
  }
  return sites;
}

/** An UPDATE or DELETE seen as the SELECT of the rows it changes (its tables are the FROM that columns resolve against). */
export function writeScopeOf(statement: UpdateNode | DeleteNode): SelectNode {
  // A DELETE's targets name tables (or aliases) of its FROM list, which holds the tables themselves.
  const from = statement.kind === 'update' ? statement.tables : statement.from.length > 0 ? statement.from : statement.targets;
  return {
    kind: 'select',
    distinct: false,
    // SET values, so that questions about the whole statement (its tables, WITH) see their subqueries.
    items: statement.kind === 'update' ? statement.set.map((s) => ({ expr: s.value, alias: undefined })) : [],
    from,
    where: statement.where,
    groupBy: [],
    rollup: false,
    having: undefined,
    orderBy: statement.orderBy,
    limit: statement.limit,
    locking: undefined,
    with: statement.with,
    windows: [],
    options: [],
    compound: undefined,
  };
}

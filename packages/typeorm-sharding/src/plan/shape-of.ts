import type { AggregateSpec, GroupKey, SortKey } from '../merge/index.js';
import type { SqlDialect } from '../parameterize/index.js';
import type { ShardingRules } from '../rules/index.js';
import { columnRefOf, textOf, type AstNode } from './ast.js';
import { aliasOfColumn, expressionText } from './expression-text.js';
import { aggregateOrderOf, columnOrderOf, UNTYPED_ORDER, type ColumnOrder } from './column-order.js';
import { compileHaving, type CompiledHaving } from './having.js';
import { distinctKeysOf, extremeOf, groupKeyOf } from './merge-keys.js';
import type { DerivedColumn } from './plan.js';
import { resolveColumn, resolveKey } from './resolve-column.js';
import type { SelectShape } from './select-shape.js';

/** Alias prefix of columns the planner adds for the merge; they are stripped from results. */
export const DERIVED_PREFIX = '__shard_';

export interface ShapeResult {
  readonly shape: SelectShape;
  readonly derivedColumns: DerivedColumn[];
  readonly unmergeable: string | undefined;
}

/** Describes the outermost select in terms of result columns, adding derived columns where the merge needs them. */
export function shapeOf(ast: AstNode, rules: ShardingRules, dialect: SqlDialect, keyAliases: ReadonlyMap<string, string>): ShapeResult {
  const columns: AstNode[] = Array.isArray(ast.columns) ? ast.columns : [];
  const hasStar = ast.columns === '*' || columns.some((c) => c?.expr?.type === 'column_ref' && textOf(c.expr.column) === '*');
  const derivedColumns: DerivedColumn[] = [];
  let unmergeable: string | undefined;
  const derive = (expression: string, kind: string): string => {
    const existing = derivedColumns.find((d) => d.expression === expression);
    if (existing) return existing.alias;
    const alias = `${DERIVED_PREFIX}${kind}_${derivedColumns.length}`;
    derivedColumns.push({ expression, alias });
    return alias;
  };

  /** The result alias holding `expr`, if the select list already has it. */
  const findAlias = (expr: AstNode): string | undefined => {
    const ref = columnRefOf(expr);
    const text = expressionText(expr);
    for (const c of columns) {
      const cref = columnRefOf(c.expr);
      if (ref && cref && cref.column === ref.column && (cref.table === ref.table || ref.table === undefined)) return aliasOfColumn(c);
      if (ref && ref.table === undefined && textOf(c.as) === ref.column) return textOf(c.as);
      if (!ref && text !== undefined && expressionText(c.expr) === text) return aliasOfColumn(c);
    }
    if (ref && hasStar) return ref.column;
    return undefined;
  };
  /** How the database orders the values of `expr` (see column-order.ts). */
  const orderOf = (expr: AstNode | undefined): ColumnOrder => {
    if (expr?.type === 'aggr_func') return aggregateOrderOf(String(expr.name).toUpperCase(), orderOf(expr.args?.expr), expressionText(expr.args?.expr), dialect);
    const col = expr && resolveColumn(expr, ast, rules);
    return col ? columnOrderOf(col, dialect) : UNTYPED_ORDER;
  };

  const orderBy: SortKey[] = [];
  /** `ORDER BY alias`: the select-list expression the alias names (its type decides the order). */
  const aliased = (expr: AstNode): AstNode | undefined => {
    const ref = columnRefOf(expr);
    if (!ref || ref.table !== undefined) return undefined;
    return columns.find((c) => textOf(c.as) === ref.column)?.expr;
  };
  for (const item of (ast.orderby ?? []) as AstNode[]) {
    const direction = String(item.type ?? 'ASC').toUpperCase() === 'DESC' ? 'DESC' : 'ASC';
    const target = aliased(item.expr) ?? item.expr;
    const order = orderOf(target);
    const text = expressionText(target);
    if (order.kind === 'refused') {
      unmergeable ??= order.reason;
      continue;
    }
    const { type, collation, key } = order.order;
    // An aggregate's key is valid only as the merged aggregate's key column: it must be selected.
    if (key !== undefined && text !== undefined && (target.type !== 'aggr_func' || findAlias(item.expr) !== undefined)) {
      // A key the server computes (text weights, ENUM position, exact temporal value).
      orderBy.push({ column: derive(key(text), 'key'), direction, type, collation });
      continue;
    }
    let alias = findAlias(item.expr);
    if (alias === undefined) {
      if (text === undefined || item.expr.type === 'aggr_func') {
        unmergeable ??= 'ORDER BY an expression that is not in the select list';
        continue;
      }
      alias = derive(text, 'sort');
    }
    orderBy.push({ column: alias, direction, type, collation });
  }

  const aggregates: AggregateSpec[] = [];
  const aggregateAlias = new Map<string, string>();
  for (const c of columns) {
    const expr = c?.expr;
    if (expr?.type !== 'aggr_func') continue;
    const alias = textOf(c.as);
    const fn = String(expr.name).toUpperCase();
    const argText = expressionText(expr.args?.expr);
    if (!alias) {
      unmergeable ??= `${fn}() without an alias`;
      continue;
    }
    const text = expressionText(expr);
    if (text !== undefined) aggregateAlias.set(text, alias);
    if (fn === 'COUNT' && expr.args?.distinct) {
      // COUNT(DISTINCT key): each key value lives on one shard, so partial counts add up.
      if (!resolveKey(expr.args.expr, ast, keyAliases)) unmergeable ??= 'COUNT(DISTINCT …) of a column other than the shard key';
      aggregates.push({ alias, fn: 'COUNT' });
    } else if (fn === 'COUNT' || fn === 'SUM') {
      aggregates.push({ alias, fn });
    } else if (fn === 'MIN' || fn === 'MAX') {
      const spec = extremeOf(fn, alias, orderOf(expr.args?.expr), argText, derive);
      if ('unmergeable' in spec) unmergeable ??= spec.unmergeable;
      else aggregates.push(spec);
    } else if (fn === 'AVG' && argText !== undefined && !expr.args?.distinct) {
      aggregates.push({ alias, fn: 'AVG', sumAlias: derive(`SUM(${argText})`, 'avg_sum'), countAlias: derive(`COUNT(${argText})`, 'avg_count') });
    } else {
      unmergeable ??= `${fn}() over several shards`;
    }
  }

  const groupBy: GroupKey[] = [];
  for (const g of (ast.groupby?.columns ?? []) as AstNode[]) {
    const target = aliased(g) ?? g;
    const group = groupKeyOf(orderOf(target), findAlias(g), expressionText(target), derive);
    if ('unmergeable' in group) unmergeable ??= group.unmergeable;
    else groupBy.push(group.key);
  }
  const distinct = Boolean(ast.distinct);
  const groupCols = distinct ? columns.map((c) => c.expr) : ((ast.groupby?.columns ?? []) as AstNode[]);
  const groupsAreShardLocal = (groupBy.length > 0 || distinct) && groupCols.some((g) => resolveKey(g, ast, keyAliases));
  const distinctKeys = distinct && !groupsAreShardLocal && !hasStar
    ? distinctKeysOf(columns.map((c) => ({ name: aliasOfColumn(c), order: orderOf(c.expr), text: expressionText(c.expr) })), derive)
    : undefined;
  if (distinctKeys && 'unmergeable' in distinctKeys) unmergeable ??= distinctKeys.unmergeable;
  const distinctColumns = distinctKeys && 'keys' in distinctKeys ? distinctKeys.keys : undefined;

  let having: CompiledHaving | undefined;
  if (ast.having && !groupsAreShardLocal) {
    having = compileHaving(ast.having, (node) => {
      const text = expressionText(node);
      if (node.type === 'aggr_func') {
        if (text === undefined) return undefined;
        const known = aggregateAlias.get(text);
        if (known) return known;
        const fn = String(node.name).toUpperCase();
        if ((fn !== 'COUNT' && fn !== 'SUM' && fn !== 'MIN' && fn !== 'MAX') || node.args?.distinct) return undefined;
        const alias = derive(text, 'having');
        if (fn === 'COUNT' || fn === 'SUM') aggregates.push({ alias, fn });
        else {
          const spec = extremeOf(fn, alias, orderOf(node.args?.expr), expressionText(node.args?.expr), derive);
          if ('unmergeable' in spec) return undefined;
          aggregates.push(spec);
        }
        aggregateAlias.set(text, alias);
        return alias;
      }
      return findAlias(node);
    });
    if (!having) unmergeable ??= 'a HAVING condition the merge cannot evaluate';
  }

  return { shape: { orderBy, groupBy, aggregates, distinct, distinctColumns, having, groupsAreShardLocal }, derivedColumns, unmergeable };
}

import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import type { ShardingRules } from '../rules/index.js';
import { columnRefOf, fromItemsOf, textOf, type AstNode } from './ast.js';

/** A real table's column an expression stands for: the FROM item's alias and table, and the column. */
interface SourceColumn {
  readonly alias: string;
  readonly table: string;
  readonly column: string;
}

/**
 * The real table columns a column reference may stand for, following derived tables
 * (`distinctAlias.Order_id` → `Order`.`id`). Unqualified references try every FROM item.
 */
function* sourcesOf(expr: AstNode, select: AstNode): Generator<SourceColumn> {
  const ref = columnRefOf(expr);
  if (!ref) return;
  for (const item of fromItemsOf(select)) {
    const alias = item.as ?? item.table;
    if (ref.table !== undefined && alias !== ref.table) continue;
    if (typeof item.table === 'string') {
      yield { alias, table: item.table, column: ref.column };
    } else if (item.expr?.ast) {
      const inner = item.expr.ast as AstNode;
      for (const c of (inner.columns ?? []) as AstNode[]) {
        const name = textOf(c.as) ?? columnRefOf(c.expr)?.column;
        if (name === ref.column) yield* sourcesOf(c.expr, inner);
      }
    }
  }
}

/** The entity column behind an expression of the select, following derived tables. */
export function resolveColumn(expr: AstNode, select: AstNode, rules: ShardingRules): ColumnMetadata | undefined {
  for (const source of sourcesOf(expr, select)) {
    const col = rules.ruleOf(source.table)?.metadata.columns.find((c) => c.databaseName === source.column);
    if (col) return col;
  }
  return undefined;
}

/** True when the expression is the shard key of a bound table (following derived tables). */
export function resolveKey(expr: AstNode, select: AstNode, keyAliases: ReadonlyMap<string, string>): boolean {
  for (const source of sourcesOf(expr, select)) {
    if (keyAliases.get(source.alias)?.toLowerCase() === source.column.toLowerCase()) return true;
  }
  return false;
}

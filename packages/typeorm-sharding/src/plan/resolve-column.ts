import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import type { ShardingRules } from '../rules/index.js';
import type { SelectNode, SqlNode } from './sql-node.js';

/** A real table's column an expression stands for: the FROM item's alias and table, and the column. */
interface SourceColumn {
  readonly alias: string;
  readonly table: string;
  readonly column: string;
}

/** The name a select item gives its column: its alias, else the column it reads. */
export function itemName(item: { readonly expr: SqlNode; readonly alias: string | undefined }): string | undefined {
  return item.alias ?? (item.expr.kind === 'column' ? item.expr.column : undefined);
}

/**
 * The real table columns a column reference may stand for, following derived tables
 * (`distinctAlias.Order_id` → `Order`.`id`). Unqualified references try every FROM item.
 */
function* sourcesOf(expr: SqlNode, select: SelectNode): Generator<SourceColumn> {
  if (expr.kind !== 'column') return;
  for (const item of select.from) {
    if (item.kind === 'opaque-source') continue;
    const alias = item.alias ?? (item.kind === 'table' ? item.table : undefined);
    if (expr.table !== undefined && alias !== expr.table) continue;
    if (item.kind === 'table') {
      yield { alias: alias!, table: item.table, column: expr.column };
    } else {
      for (const inner of item.query.items) {
        if (itemName(inner) === expr.column) yield* sourcesOf(inner.expr, item.query);
      }
    }
  }
}

/** The entity column behind an expression of the select, following derived tables. */
export function resolveColumn(expr: SqlNode, select: SelectNode, rules: ShardingRules): ColumnMetadata | undefined {
  for (const source of sourcesOf(expr, select)) {
    const col = rules.ruleOf(source.table)?.metadata.columns.find((c) => c.databaseName === source.column);
    if (col) return col;
  }
  return undefined;
}

/** True when the expression is the shard key of a bound table (following derived tables). */
export function resolveKey(expr: SqlNode, select: SelectNode, keyAliases: ReadonlyMap<string, string>): boolean {
  for (const source of sourcesOf(expr, select)) {
    if (keyAliases.get(source.alias)?.toLowerCase() === source.column.toLowerCase()) return true;
  }
  return false;
}

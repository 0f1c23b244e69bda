import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import type { ShardingRules } from '../../rules/index.js';
import type { SelectNode, SqlNode } from './sql-node.js';

/** A real table's column an expression stands for: the FROM item's alias and table, and the column. */
interface SourceColumn {
  readonly alias: string;
  readonly table: string;
  readonly column: string;
  /** The column may be NULL for want of a row: its table (or a derived table on the way) is the outer side of an outer join. */
  readonly nullExtended: boolean;
}

/** FROM items that an outer join may fill with NULLs: the right of a LEFT JOIN, everything before a RIGHT JOIN. */
function nullExtendedItems(select: SelectNode): Set<number> {
  const out = new Set<number>();
  select.from.forEach((item, k) => {
    const join = item.join ?? '';
    if (/^(LEFT|FULL)/.test(join)) out.add(k);
    if (/^(RIGHT|FULL)/.test(join)) for (let i = 0; i < k; i++) out.add(i);
  });
  return out;
}

/** The name a select item gives its column: its alias, else the column it reads. */
export function itemName(item: { readonly expr: SqlNode; readonly alias: string | undefined }): string | undefined {
  return item.alias ?? (item.expr.kind === 'column' ? item.expr.column : undefined);
}

/**
 * The real table columns a column reference may stand for, following derived tables
 * (`distinctAlias.Order_id` → `Order`.`id`). Unqualified references try every FROM item.
 */
function* sourcesOf(expr: SqlNode, select: SelectNode, nullExtended = false): Generator<SourceColumn> {
  if (expr.kind !== 'column') return;
  const outer = nullExtendedItems(select);
  for (const [k, item] of select.from.entries()) {
    // VALUES rows name their columns column_0, column_1 …: no table column stands behind them.
    if (item.kind === 'values') continue;
    const alias = item.alias ?? (item.kind === 'table' ? item.table : undefined);
    if (expr.table !== undefined && alias !== expr.table) continue;
    const nullable = nullExtended || outer.has(k);
    if (item.kind === 'table') {
      yield { alias: alias!, table: item.table, column: expr.column, nullExtended: nullable };
    } else {
      for (const inner of item.query.items) {
        if (itemName(inner) === expr.column) yield* sourcesOf(inner.expr, item.query, nullable);
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

/**
 * True when the expression is the shard key of a bound table (following derived tables).
 * With `nonNull`, only a key no outer join can turn into NULL counts: NULLs of a missing row
 * come from every shard, so groups of such a key are not shard-local.
 */
export function resolveKey(expr: SqlNode, select: SelectNode, keyAliases: ReadonlyMap<string, string>, nonNull = false): boolean {
  for (const source of sourcesOf(expr, select)) {
    if (nonNull && source.nullExtended) continue;
    if (keyAliases.get(source.alias)?.toLowerCase() === source.column.toLowerCase()) return true;
  }
  return false;
}

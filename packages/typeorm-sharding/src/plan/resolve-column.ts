import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import type { SqlDialect } from '../parameterize/index.js';
import type { ShardingRules } from '../rules/index.js';
import { columnRefOf, fromItemsOf, textOf, type AstNode } from './ast.js';
import type { TableRef } from './table-refs.js';

/** How a sort key's values compare, as far as the planner can tell from the entity column. */
export type SortType = 'numeric' | 'string' | 'date' | 'auto';

/** The entity column behind an expression of the select, following derived tables. */
export function resolveColumn(expr: AstNode, select: AstNode, refs: readonly TableRef[], rules: ShardingRules): ColumnMetadata | undefined {
  const ref = columnRefOf(expr);
  if (!ref) return undefined;
  for (const item of fromItemsOf(select)) {
    const alias = item.as ?? item.table;
    if (ref.table !== undefined && alias !== ref.table) continue;
    if (typeof item.table === 'string') {
      const rule = rules.ruleOf(item.table);
      const col = rule?.metadata.columns.find((c) => c.databaseName === ref.column);
      if (col) return col;
    } else if (item.expr?.ast) {
      const inner = item.expr.ast as AstNode;
      for (const c of (inner.columns ?? []) as AstNode[]) {
        const name = textOf(c.as) ?? columnRefOf(c.expr)?.column;
        if (name === ref.column) return resolveColumn(c.expr, inner, refs, rules);
      }
    }
  }
  return undefined;
}

/** True when the expression is the shard key of a bound table (following derived tables). */
export function resolveKey(expr: AstNode, select: AstNode, refs: readonly TableRef[], keyAliases: ReadonlyMap<string, string>): boolean {
  const ref = columnRefOf(expr);
  if (!ref) return false;
  for (const item of fromItemsOf(select)) {
    const alias = item.as ?? item.table;
    if (ref.table !== undefined && alias !== ref.table) continue;
    if (typeof item.table === 'string') {
      if (keyAliases.get(alias)?.toLowerCase() === ref.column.toLowerCase()) return true;
    } else if (item.expr?.ast) {
      const inner = item.expr.ast as AstNode;
      for (const c of (inner.columns ?? []) as AstNode[]) {
        const name = textOf(c.as) ?? columnRefOf(c.expr)?.column;
        if (name === ref.column && resolveKey(c.expr, inner, refs, keyAliases)) return true;
      }
    }
  }
  return false;
}

const NUMERIC = /^(tinyint|smallint|mediumint|int|integer|bigint|decimal|numeric|float|double|real|dec|int2|int4|int8|double precision|year|bit)$/;
const DATES = /^(date|datetime|timestamp|time)$/;

/** Sort type of an entity column, and whether MySQL compares it case-insensitively. */
export function typeFamily(column: ColumnMetadata, dialect: SqlDialect): { type: SortType; ci: boolean } {
  const raw = column.type;
  const t = (typeof raw === 'string' ? raw : raw === Number ? 'int' : raw === Date ? 'datetime' : raw === String ? 'varchar' : raw === Boolean ? 'tinyint' : '').toLowerCase();
  if (NUMERIC.test(t)) return { type: 'numeric', ci: false };
  if (DATES.test(t)) return { type: 'date', ci: false };
  if (t === '') return { type: 'auto', ci: false };
  // MySQL/MariaDB default collations (utf8mb4_general_ci, utf8mb4_unicode_ci, …) compare case-insensitively.
  const collation = column.collation ?? '';
  const ci = dialect === 'mysql' && !/_bin$|binary/i.test(collation);
  return { type: 'string', ci };
}

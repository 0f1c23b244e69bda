import type { ParameterizedSql, SqlDialect } from '../parameterize/index.js';
import { parseStatement } from '../plan/nodes/from-parser.js';
import type { SqlNode } from '../plan/nodes/sql-node.js';
import type { SelectPlan, ValueRef } from '../plan/plan.js';
import { keyConditionOf } from '../plan/routing/key-condition.js';
import { partitionOf, placeOf, type GlobalIndex, type ShardingRules } from '../rules/index.js';
import { quoted } from './statement-text.js';

/** A SELECT shape whose WHERE pins a globally indexed column: `email = ?`, `email IN (…)`, under ANDs. */
export interface LookupSite {
  readonly index: GlobalIndex;
  /** Where the column's values are in a statement of this shape. */
  readonly refs: readonly ValueRef[];
}

/**
 * The lookup site of a SELECT shape (worked out once per cached plan), or undefined: the shape
 * is routed by its shard key already, reads several tables, or does not pin the value of a
 * one-column global index with `=` / `IN` under ANDs only. An index being built (write-only) is
 * not `readable`: its entries do not cover every row yet.
 */
export function lookupSiteOf(plan: SelectPlan, p: ParameterizedSql, rules: ShardingRules, readable: (index: GlobalIndex) => boolean = () => true): LookupSite | undefined {
  if (plan.condition.kind !== 'any') return undefined;
  const indexes = rules.globalIndexesOf(plan.table).filter((g) => g.columns.length === 1 && readable(g));
  if (indexes.length === 0) return undefined;
  const ast = parseStatement(p.parserSql);
  if (!ast || ast.kind !== 'select' || ast.with !== undefined || ast.compound || ast.from.length !== 1) return undefined;
  const from = ast.from[0]!;
  if (from.kind !== 'table' || from.table.toLowerCase() !== plan.table.toLowerCase()) return undefined;
  const names = new Set([from.table.toLowerCase(), (from.alias ?? from.table).toLowerCase()]);
  for (const index of indexes) {
    const column = index.columns[0]!.toLowerCase();
    const isKey = (node: SqlNode) => node.kind === 'column' && node.column.toLowerCase() === column && (node.table === undefined || names.has(node.table.toLowerCase()));
    const condition = keyConditionOf(ast.where, isKey, []);
    if (condition.kind === 'values') return { index, refs: condition.refs };
  }
  return undefined;
}

/** The values a statement gives the site's column (NULL matches no row and is dropped). */
export function lookupValuesOf(site: LookupSite, p: ParameterizedSql): unknown[] {
  const values = site.refs.flatMap((ref) => (ref.kind === 'slot' ? [p.slots[ref.slot]!.value] : p.inLists[ref.list]!.items.map((item) => item.value)));
  return values.filter((v) => v !== null && v !== undefined);
}

/** What a lookup read found: the owners' shards, and how many of the values had entries. */
export interface OwnerShards {
  readonly shards: Set<number>;
  readonly hits: number;
  readonly misses: number;
}

/**
 * The shards of the owner rows of `values`, read from the lookup table (one shard per value,
 * one round trip per server). A stale entry only adds a shard whose read then finds no row:
 * the owner's read keeps its own `WHERE column = ?`.
 */
export async function ownerShardsOf(
  site: LookupSite,
  values: readonly unknown[],
  rules: ShardingRules,
  dialect: SqlDialect,
  run: (sql: string, parameters: readonly unknown[]) => Promise<{ records?: unknown[] }>,
): Promise<OwnerShards> {
  const shards = new Set<number>();
  if (values.length === 0) return { shards, hits: 0, misses: 0 };
  const { index } = site;
  const q = (c: string) => quoted(c, dialect);
  const column = index.columns[0]!;
  const sql = `SELECT ${q(column)}, ${q(index.ownerColumn)} FROM ${q(index.lookupTable)} WHERE ${q(column)} IN (${values.map(() => '?').join(', ')})`;
  const rows = ((await run(sql, values)).records ?? []) as Record<string, unknown>[];
  const key = rules.ruleOf(index.table)!.shardKey!;
  for (const row of rows) shards.add(placeOf(key, partitionOf(key, row[index.ownerColumn])).shard);
  // A MySQL _ci column finds 'A@x' for 'a@x': counted by the rows' own spelling, at most the values asked.
  const distinct = new Set(values.map(String)).size;
  const hits = Math.min(distinct, new Set(rows.map((r) => String(r[column]))).size);
  return { shards, hits, misses: distinct - hits };
}

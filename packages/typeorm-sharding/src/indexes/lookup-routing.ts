import type { ParameterizedSql } from '../parameterize/index.js';
import { parseStatement } from '../plan/nodes/from-parser.js';
import type { SqlNode } from '../plan/nodes/sql-node.js';
import type { SelectPlan, ValueRef } from '../plan/plan.js';
import { keyConditionOf } from '../plan/routing/key-condition.js';
import { partitionOf, placeOf, type GlobalIndex, type ShardingRules } from '../rules/index.js';

/**
 * A SELECT shape whose WHERE pins every column of a global index: `email = ?`, `email IN (…)`,
 * `shopId = ? AND sku IN (…)`, under ANDs.
 */
export interface LookupSite {
  readonly index: GlobalIndex;
  /** Per column of the index (in its order): where its values are in a statement of this shape. */
  readonly refs: readonly (readonly ValueRef[])[];
  /**
   * The owner a lookup found for a value may be remembered and read first next time
   * (`owner-memory.ts`): a unique index, each column pinned by one `=`, and a SELECT whose rows
   * are the owner's rows (no aggregate without GROUP BY: it returns a row when nothing matches)
   * that locks nothing (a locking read of a wrong guess would lock the wrong shard's gap).
   */
  readonly rememberable: boolean;
}

/**
 * The lookup site of a SELECT shape (worked out once per cached plan), or undefined: the shape
 * is routed by its shard key already, reads several tables, or does not pin every column of a
 * global index with `=` / `IN` under ANDs only. Unique indexes are preferred, then those with
 * fewer columns. An index being built (write-only) is not `readable`: its entries do not cover
 * every row yet.
 */
export function lookupSiteOf(plan: SelectPlan, p: ParameterizedSql, rules: ShardingRules, readable: (index: GlobalIndex) => boolean = () => true): LookupSite | undefined {
  if (plan.condition.kind !== 'any') return undefined;
  const indexes = rules
    .globalIndexesOf(plan.table)
    .filter(readable)
    .sort((a, b) => Number(b.unique) - Number(a.unique) || a.columns.length - b.columns.length);
  if (indexes.length === 0) return undefined;
  const ast = parseStatement(p.parserSql);
  if (!ast || ast.kind !== 'select' || ast.with !== undefined || ast.compound || ast.from.length !== 1) return undefined;
  const from = ast.from[0]!;
  if (from.kind !== 'table' || from.table.toLowerCase() !== plan.table.toLowerCase()) return undefined;
  const names = new Set([from.table.toLowerCase(), (from.alias ?? from.table).toLowerCase()]);
  const pinned = (name: string): readonly ValueRef[] | undefined => {
    const column = name.toLowerCase();
    const isKey = (node: SqlNode) => node.kind === 'column' && node.column.toLowerCase() === column && (node.table === undefined || names.has(node.table.toLowerCase()));
    const condition = keyConditionOf(ast.where, isKey, []);
    return condition.kind === 'values' ? condition.refs : undefined;
  };
  for (const index of indexes) {
    const refs = index.columns.map(pinned);
    if (!refs.every((r) => r !== undefined)) continue;
    const rememberable = index.unique && !plan.globalAggregate && ast.locking === undefined && refs.every((r) => r.length === 1 && r[0]!.kind === 'slot');
    return { index, refs, rememberable };
  }
  return undefined;
}

/** The values a statement gives each of the site's columns (NULL matches no row and is dropped). */
export function lookupValuesOf(site: LookupSite, p: ParameterizedSql): unknown[][] {
  return site.refs.map((refs) =>
    refs.flatMap((ref) => (ref.kind === 'slot' ? [p.slots[ref.slot]!.value] : p.inLists[ref.list]!.items.map((item) => item.value))).filter((v) => v !== null && v !== undefined),
  );
}

/** What a lookup read found: the owners' shards, and how many of the values had entries. */
export interface OwnerShards {
  readonly shards: Set<number>;
  readonly hits: number;
  readonly misses: number;
}

/**
 * The shards of the owner rows of `values`, from the rows a lookup read returned (see
 * `lookup-read.ts`). A stale entry only adds a shard whose read then finds no row: the owner's
 * read keeps its own `WHERE column = ?`.
 */
export function ownerShardsOf(site: LookupSite, values: readonly (readonly unknown[])[], rows: readonly Record<string, unknown>[], rules: ShardingRules): OwnerShards {
  const shards = new Set<number>();
  const { index } = site;
  const key = rules.ruleOf(index.table)!.shardKey!;
  for (const row of rows) shards.add(placeOf(key, partitionOf(key, row[index.ownerColumn])).shard);
  // Counted by the first column's values. A MySQL _ci column finds 'A@x' for 'a@x': counted by the rows' own spelling, at most the values asked.
  const column = index.columns[0]!;
  const distinct = new Set(values[0]!.map(String)).size;
  const hits = Math.min(distinct, new Set(rows.map((r) => String(r[column]))).size);
  return { shards, hits, misses: distinct - hits };
}

/**
 * Can a SELECT's window functions be computed shard by shard? A window's value depends on
 * every row of its partition. When the PARTITION BY holds the shard key of a sharded table
 * the SELECT reads, every partition lies on one shard (rows of one key value are on one
 * shard, and tables joined to it are bound on that key), so each shard computes exactly what
 * one database would. Any other window over sharded rows — no PARTITION BY, a partition by
 * another column, a named window the planner cannot resolve — would be computed over each
 * shard's part of a partition: refused.
 */
import type { ShardingRules } from '../../rules/index.js';
import type { SelectNode, SqlNode, WindowSpec } from '../nodes/sql-node.js';
import { clauseExpressionsOf, forEachNode } from '../nodes/sql-tree.js';
import { tableRefsOf } from '../nodes/table-refs.js';

/** Why the windows of `select`'s own clauses cannot be computed shard by shard, or undefined when they can (or it has none). */
export function windowProblem(select: SelectNode, rules: ShardingRules): string | undefined {
  const windows: { name: string; spec: WindowSpec }[] = [];
  for (const expr of clauseExpressionsOf(select)) {
    forEachNode(expr, (n) => {
      if ((n.kind === 'function' || n.kind === 'aggregate') && n.over) windows.push({ name: n.name, spec: n.over });
    });
  }
  if (windows.length === 0) return undefined;
  const sharded = rowsFromShardedTables(select, rules);
  if (sharded === undefined) return undefined;
  for (const { name, spec } of windows) {
    const partitionBy = resolvedPartitionBy(spec, select);
    if (partitionBy === undefined) return `the window function ${name}() OVER a named window (name it in OVER (…) itself)`;
    if (!partitionBy.some((p) => isShardKeyOf(p, select, rules))) {
      return `the window function ${name}() OVER (…) whose PARTITION BY does not hold the shard key of "${sharded}" (each shard would compute it over its own rows only; partition by the shard key, or query the rows and compute it yourself)`;
    }
  }
  return undefined;
}

/** The first sharded table whose rows reach `select` through its FROM (directly or through derived tables). */
function rowsFromShardedTables(select: SelectNode, rules: ShardingRules): string | undefined {
  const fromOnly: SelectNode = { ...select, items: [], where: undefined, having: undefined, groupBy: [], orderBy: [], windows: [], compound: undefined, from: select.from.map((f) => ({ ...f, on: undefined })) };
  return tableRefsOf(fromOnly, rules).find((r) => r.rule?.distribution === 'sharded')?.name;
}

/** The PARTITION BY a window uses: its own, or the one of the named window it refers to. */
function resolvedPartitionBy(spec: WindowSpec, select: SelectNode): readonly SqlNode[] | undefined {
  let current = spec;
  for (let depth = 0; current.base !== undefined; depth++) {
    const base = current.base;
    const named = select.windows.find((w) => w.name.toLowerCase() === base.toLowerCase());
    if (!named || depth > select.windows.length) return undefined;
    // A window that refines another takes its PARTITION BY (it may not have one of its own).
    current = current.partitionBy.length > 0 ? { ...named.spec, partitionBy: current.partitionBy } : named.spec;
  }
  return current.partitionBy;
}

/** True when `node` is the shard-key column of a sharded table of `select`'s own FROM. */
function isShardKeyOf(node: SqlNode, select: SelectNode, rules: ShardingRules): boolean {
  if (node.kind !== 'column') return false;
  const tables = select.from.filter((f) => f.kind === 'table');
  if (node.table === undefined && select.from.length !== 1) return false;
  return tables.some((t) => {
    if (node.table !== undefined && node.table !== (t.alias ?? t.table)) return false;
    const rule = rules.ruleOf(t.table);
    return rule?.distribution === 'sharded' && rule.shardKey!.columnName.toLowerCase() === node.column.toLowerCase();
  });
}

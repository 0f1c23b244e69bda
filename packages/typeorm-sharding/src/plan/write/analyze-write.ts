import { UnsupportedShardingError } from '../../errors/index.js';
import type { ShardingRules } from '../../rules/index.js';
import { keyConditionOf } from '../routing/key-condition.js';
import type { Plan, PrunableOr } from '../plan.js';
import type { DeleteNode, SqlNode, UpdateNode } from '../nodes/sql-node.js';

/** Plans an UPDATE or DELETE of one table. */
export function analyzeWrite(ast: UpdateNode | DeleteNode, rules: ShardingRules, sql: string): Plan {
  const targets = ast.kind === 'update' ? ast.tables : ast.targets;
  const from = ast.kind === 'delete' ? ast.from : [];
  const names = [...targets, ...from].flatMap((t) => (t.kind === 'table' ? [t.table] : []));
  // `DELETE o FROM orders o`: the target names the alias of a FROM table.
  const aliases = new Map(from.flatMap((t) => (t.kind === 'table' ? [[(t.alias ?? t.table).toLowerCase(), t.table] as const] : [])));
  const tables = names.map((n) => aliases.get(n.toLowerCase()) ?? n);
  const distributions = new Set(tables.map((n) => rules.distributionOf(n)));
  if (new Set(tables.map((n) => n.toLowerCase())).size > 1) {
    const verb = ast.kind.toUpperCase();
    throw new UnsupportedShardingError(
      `Multi-table ${verb} on sharded or broadcast tables (${[...new Set(tables)].join(', ')}) is not supported. ` +
        `Write it as a ${verb} of one table whose rows are chosen by a subquery (${verb === 'UPDATE' ? 'UPDATE t SET … WHERE key IN (SELECT …)' : 'DELETE FROM t WHERE key IN (SELECT …)'}), which runs first across the shards, or as one ${verb} per table.`,
      { sql },
    );
  }
  const table = tables[0]!;
  const rule = rules.ruleOf(table);
  if (!rule || distributions.has('unsharded')) return { kind: 'default-shard', reason: 'unsharded table' };
  if (rule.distribution === 'broadcast') return { kind: 'all-shards', reason: 'write to a broadcast table', result: 'copies' };
  const key = rule.shardKey!;
  const target = targets[0];
  const alias = (target?.kind === 'table' ? target.alias : undefined) ?? table;
  const isKey = (node: SqlNode): boolean =>
    node.kind === 'column' && node.column.toLowerCase() === key.columnName.toLowerCase() && (node.table === undefined || node.table === alias || node.table === table);
  const prunableLists: number[] = [];
  const prunableOrs: PrunableOr[] = [];
  const condition = keyConditionOf(ast.where, isKey, prunableLists, prunableOrs);
  let keyAssignment: number | undefined;
  if (ast.kind === 'update') {
    for (const set of ast.set) {
      if (set.column.toLowerCase() !== key.columnName.toLowerCase()) continue;
      // `SET key = ?` is allowed only when it keeps the routed key (checked per statement at route time).
      if (set.value.kind !== 'slot' || condition.kind !== 'values' || condition.refs.length !== 1) {
        throw new UnsupportedShardingError(
          `UPDATE of the shard key "${key.columnName}" of "${table}" would move rows between shards; delete and insert them instead.`,
          { sql },
        );
      }
      keyAssignment = set.value.slot;
    }
  }
  const limited = ast.limit !== undefined || ast.orderBy.length > 0;
  return { kind: 'write', table, condition, prunableLists, ...(prunableOrs.length > 0 ? { prunableOrs } : {}), limited, keyAssignment };
}

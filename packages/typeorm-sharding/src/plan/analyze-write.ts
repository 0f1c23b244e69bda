import { UnsupportedShardingError } from '../errors/index.js';
import type { ShardingRules } from '../rules/index.js';
import { columnRefOf, textOf, type AstNode } from './ast.js';
import { keyConditionOf } from './key-condition.js';
import type { Plan } from './plan.js';

/** Plans an UPDATE or DELETE of one table. */
export function analyzeWrite(ast: AstNode, rules: ShardingRules, sql: string): Plan {
  const targets: AstNode[] = Array.isArray(ast.table) ? ast.table : [ast.table];
  const from: AstNode[] = Array.isArray(ast.from) ? ast.from : [];
  const names = [...targets, ...from].map((t) => t?.table).filter((t): t is string => typeof t === 'string');
  const distributions = new Set(names.map((n) => rules.distributionOf(n)));
  if (new Set(names.map((n) => n.toLowerCase())).size > 1) {
    throw new UnsupportedShardingError(`Multi-table ${String(ast.type).toUpperCase()} on sharded or broadcast tables is not supported.`, { sql });
  }
  const table = names[0]!;
  const rule = rules.ruleOf(table);
  if (!rule || distributions.has('unsharded')) return { kind: 'default-shard', reason: 'unsharded table' };
  if (rule.distribution === 'broadcast') return { kind: 'all-shards', reason: 'write to a broadcast table' };

  const key = rule.shardKey!;
  if (ast.type === 'update') {
    for (const set of (ast.set ?? []) as AstNode[]) {
      if (textOf(set.column)?.toLowerCase() === key.columnName.toLowerCase()) {
        throw new UnsupportedShardingError(
          `UPDATE of the shard key "${key.columnName}" of "${table}" would move rows between shards; delete and insert them instead.`,
          { sql },
        );
      }
    }
  }
  const alias = (targets[0]?.as as string | undefined) ?? table;
  const isKey = (node: AstNode): boolean => {
    const ref = columnRefOf(node);
    return !!ref && ref.column.toLowerCase() === key.columnName.toLowerCase() && (ref.table === undefined || ref.table === alias || ref.table === table);
  };
  const prunableLists: number[] = [];
  const condition = keyConditionOf(ast.where, isKey, prunableLists);
  const limited = Boolean(ast.limit?.value?.length) || Boolean(ast.orderby?.length);
  return { kind: 'write', table, condition, prunableLists, limited };
}

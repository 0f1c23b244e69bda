import { UnsupportedShardingError } from '../../errors/index.js';
import type { ParameterizedSql, SqlDialect } from '../../parameterize/index.js';
import { conflictProblem, type ShardingRules } from '../../rules/index.js';
import { conflictClausesOf } from './conflict-clause.js';
import { insertHeadOf } from './insert-head.js';
import type { Plan } from '../plan.js';
import { insertSelectPlan } from '../ddl/table-rebuild.js';

/** Plans an INSERT / REPLACE: where its rows go is decided per row at route time. */
export function analyzeInsert(p: ParameterizedSql, rules: ShardingRules, dialect: SqlDialect): Plan {
  const head = insertHeadOf(p.sql, dialect);
  const copy = head.fromSelect ? insertSelectPlan(p.sql, dialect, head, rules) : undefined;
  if (copy) return copy;
  const rule = rules.ruleOf(head.table);
  if (!rule || rule.distribution === 'unsharded') return { kind: 'default-shard', reason: 'insert into an unsharded table' };
  if (rule.distribution === 'broadcast') {
    if (head.fromSelect) throw new UnsupportedShardingError(`INSERT … SELECT into broadcast table "${head.table}" is not supported.`, { sql: p.sql, stage: 'write' });
    return { kind: 'all-shards', reason: 'insert into a broadcast table', result: 'copies' };
  }
  if (head.fromSelect) {
    throw new UnsupportedShardingError(`INSERT … SELECT into sharded table "${head.table}" is not supported; insert the rows with VALUES.`, { sql: p.sql, stage: 'write' });
  }
  const keyColumn = rule.shardKey!.columnName;
  const keyColumnIndex = head.columns?.findIndex((c) => c.toLowerCase() === keyColumn.toLowerCase()) ?? -1;
  if (keyColumnIndex < 0) {
    throw new UnsupportedShardingError(
      `INSERT into sharded table "${head.table}" must list the shard-key column "${keyColumn}" with a value for every row.`,
      { sql: p.sql, stage: 'write' },
    );
  }
  // Upserts (ON DUPLICATE KEY UPDATE, ON CONFLICT …, INSERT IGNORE, REPLACE) only see their own shard's rows;
  // into a table with a global unique index they are routed row by row through it (`indexes/upsert/`).
  const routed = rules.globalIndexesOf(head.table).some((g) => g.unique);
  for (const conflict of routed ? [] : conflictClausesOf(p.sql, dialect)) {
    const problem = conflictProblem(rule, conflict);
    if (problem) throw new UnsupportedShardingError(problem, { sql: p.sql, stage: 'write' });
  }
  return { kind: 'insert', table: head.table, distribution: 'sharded', keyColumnIndex };
}

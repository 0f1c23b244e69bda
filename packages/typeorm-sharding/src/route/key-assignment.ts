import { UnsupportedShardingError } from '../errors/index.js';
import type { ParameterizedSql } from '../parameterize/index.js';
import type { WritePlan } from '../plan/plan.js';
import type { ShardKeyRule } from '../rules/index.js';
import { dedupeKeyOf } from './evaluate-condition.js';

/**
 * `UPDATE t SET key = ? WHERE key = ?` (TypeORM's `update({ id }, { ...dto })` repeats the
 * key): allowed only when the new value is the one every updated row already has, so no
 * row changes shard. Anything else would move rows between shards, and is refused before
 * anything runs.
 */
export function checkKeyAssignment(plan: WritePlan, p: ParameterizedSql, key: ShardKeyRule): void {
  if (plan.keyAssignment === undefined) return;
  const assigned = p.slots[plan.keyAssignment]?.value;
  const condition = plan.condition;
  const routed =
    condition.kind !== 'values'
      ? []
      : condition.refs.flatMap((ref) => (ref.kind === 'slot' ? [p.slots[ref.slot]?.value] : (p.inLists[ref.list]?.items ?? []).map((i) => i.value)));
  const keeps =
    assigned !== null &&
    assigned !== undefined &&
    routed.every((v) => v === null || v === undefined || dedupeKeyOf(v, key) === dedupeKeyOf(assigned, key));
  if (!keeps) {
    throw new UnsupportedShardingError(
      `UPDATE of the shard key "${key.columnName}" of "${plan.table}" to ${JSON.stringify(String(assigned))} would move rows between shards; delete and insert them instead (setting the key to the value it already has is allowed).`,
      { sql: p.sql, stage: 'route' },
    );
  }
}

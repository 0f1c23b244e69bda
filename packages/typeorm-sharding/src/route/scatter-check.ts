import { UnsupportedShardingError } from '../errors/index.js';
import type { SelectPlan, WritePlan } from '../plan/plan.js';
import type { RouteUnit } from './route-types.js';

/**
 * What a statement cannot do once it is routed to several statements: refused before anything
 * runs, naming the fix. A write's ORDER BY / LIMIT counts rows of one statement, not of every
 * shard; a SELECT the planner found no exact merge for cannot be put together from several.
 */
export function checkScatter(plan: SelectPlan | WritePlan, units: readonly RouteUnit[], sql: string, verb: string): void {
  if (units.length < 2) return;
  const shards = () => new Set(units.map((u) => u.shard)).size;
  if (plan.kind === 'write' && plan.limited) {
    throw new UnsupportedShardingError(
      `${verb} with ORDER BY / LIMIT reaches ${shards()} shards; its row limit cannot be applied across shards. Add a shard-key condition, or select the keys first.`,
      { sql, stage: 'route' },
    );
  }
  if (plan.kind === 'select' && !plan.merge) {
    throw new UnsupportedShardingError(
      `This query needs a cross-shard merge that is not supported yet (${plan.unmergeable ?? 'unknown'}); it reaches ${shards()} shards. Add a shard-key condition so it reaches one shard.`,
      { sql, stage: 'merge' },
    );
  }
}

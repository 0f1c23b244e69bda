import { ShardingInternalError } from '../errors/index.js';
import type { ValueSlot } from '../parameterize/index.js';
import type { KeyCondition, PrunableOr } from '../plan/plan.js';
import type { ShardKeyRule } from '../rules/index.js';
import type { Route, RouteUnit } from './route-types.js';

/** Units of such a statement cut no IN list: one shared empty map. */
const NO_LISTS: ReadonlyMap<number, readonly ValueSlot[]> = new Map();

/**
 * The route of a read that a global index's lookup sent to `shards` (the shards of its owner
 * rows), without routing it over every shard first: one unit per shard, or per table of the
 * shard under a table-per-shard layout, in shard order — the units `routeByKey` gives such a
 * statement, cut to `shards`. Undefined when the statement has more to route by (its condition
 * pins the shard key, or it has IN lists or ORs on it that each unit receives cut down): then
 * `routeByKey` routes it and its units are cut to `shards`.
 */
export function ownerRoute(
  shards: ReadonlySet<number>,
  condition: KeyCondition,
  prunableLists: readonly number[],
  prunableOrs: readonly PrunableOr[] | undefined,
  key: ShardKeyRule,
  shardCount: number,
): Route | undefined {
  if (condition.kind !== 'any' || prunableLists.length > 0 || (prunableOrs?.length ?? 0) > 0) return undefined;
  const ordered = [...shards].sort((a, b) => a - b);
  // The owners' shards come from the same rules: one outside the topology is a bug, never a shard to skip.
  const outside = ordered.find((s) => !Number.isInteger(s) || s < 0 || s >= shardCount);
  if (outside !== undefined) throw new ShardingInternalError(`a lookup found an owner on shard ${outside} of ${shardCount}`, { stage: 'route' });
  if (ordered.length === 0) return { kind: 'nowhere' };
  const tables = key.layout?.count;
  const units: RouteUnit[] = [];
  for (const shard of ordered) {
    if (tables === undefined) units.push({ shard, lists: NO_LISTS });
    else for (let table = 0; table < tables; table++) units.push({ shard, table, lists: NO_LISTS });
  }
  return { kind: 'units', units };
}

import type { ParameterizedSql, ValueSlot } from '../parameterize/index.js';
import type { KeyCondition } from '../plan/plan.js';
import type { ShardKeyRule } from '../rules/index.js';
import { dedupeKeyOf, shardsOf } from './evaluate-condition.js';
import type { Route, RouteSettings, RouteUnit } from './route-types.js';

/**
 * Routes a statement on a sharded table: which shards, and for each shard which values of
 * every prunable IN list, split into batches of at most `maxInValuesPerQuery` values.
 * Pure: no I/O, no mutation of its inputs.
 */
export function routeByKey(
  condition: KeyCondition,
  prunableLists: readonly number[],
  p: ParameterizedSql,
  key: ShardKeyRule,
  shardCount: number,
  settings: RouteSettings,
): Route {
  const all = (): number[] => Array.from({ length: shardCount }, (_, i) => i);
  // Items of each prunable list, grouped by shard, duplicates dropped (first spelling kept).
  const perList = settings.pruning ? prunableLists.map((list) => groupByShard(p.inLists[list]?.items ?? [], key)) : [];
  const known = new Map<number, ReadonlySet<number>>(perList.map((groups, i) => [prunableLists[i]!, new Set(groups.keys())]));
  const selected = shardsOf(condition, p, key, known);
  if (selected !== 'all' && selected.size === 0) return { kind: 'nowhere' };
  // The naive baseline: every shard gets the statement with its lists whole.
  if (!settings.pruning) return { kind: 'units', units: all().map((shard) => ({ shard, lists: new Map() })) };
  const candidates = selected === 'all' ? all() : [...selected].sort((a, b) => a - b);

  const units: RouteUnit[] = [];
  for (const shard of candidates) {
    const lists = new Map<number, readonly ValueSlot[]>();
    let empty = false;
    prunableLists.forEach((list, i) => {
      const items = perList[i]!.get(shard) ?? [];
      if (items.length === 0) empty = true;
      lists.set(list, items);
    });
    // An AND-ed IN list with no value on this shard: no row of this shard can match.
    if (empty) continue;
    units.push(...batches(shard, lists, settings.maxInValuesPerQuery));
  }
  return units.length === 0 ? { kind: 'nowhere' } : { kind: 'units', units };
}

function groupByShard(items: readonly ValueSlot[], key: ShardKeyRule): Map<number, ValueSlot[]> {
  const byShard = new Map<number, ValueSlot[]>();
  const seen = new Set<string>();
  for (const item of items) {
    // NULL in an IN list matches nothing.
    if (item.value === null || item.value === undefined) continue;
    const canonical = dedupeKeyOf(item.value, key);
    if (seen.has(canonical)) continue;
    seen.add(canonical);
    const shard = key.algorithm.shardIndexOf(item.value);
    let list = byShard.get(shard);
    if (!list) byShard.set(shard, (list = []));
    list.push(item);
  }
  return byShard;
}

/** Splits the longest list of a shard into batches; the other lists go whole with each batch. */
function batches(shard: number, lists: Map<number, readonly ValueSlot[]>, max: number): RouteUnit[] {
  let longest: number | undefined;
  for (const [list, items] of lists) if (longest === undefined || items.length > lists.get(longest)!.length) longest = list;
  if (longest === undefined || lists.get(longest)!.length <= max) return [{ shard, lists }];
  const items = lists.get(longest)!;
  const units: RouteUnit[] = [];
  for (let i = 0; i < items.length; i += max) {
    const batch = new Map(lists);
    batch.set(longest, items.slice(i, i + max));
    units.push({ shard, lists: batch });
  }
  return units;
}

import type { ParameterizedSql, ValueSlot } from '../parameterize/index.js';
import type { KeyCondition, PrunableOr } from '../plan/plan.js';
import { partitionCountOf, placeOf, type ShardKeyRule } from '../rules/index.js';
import { dedupeKeyOf, partitionOfValue, shardsOf, type ShardSet } from './evaluate-condition.js';
import type { Route, RouteSettings, RouteUnit } from './route-types.js';

/**
 * Routes a statement on a sharded table: which shards (and tables, under a table-per-shard
 * layout), and for each which values of every prunable IN list, split into batches of at most
 * `maxInValuesPerQuery` values, and which terms of every prunable OR (`prunableOrs`: only the
 * terms that can be true there). A layout's tables are routed as partitions exactly as shards
 * are (`rules/partition.ts`). Pure: no I/O, no mutation of its inputs.
 */
export function routeByKey(
  condition: KeyCondition,
  prunableLists: readonly number[],
  p: ParameterizedSql,
  key: ShardKeyRule,
  shardCount: number,
  settings: RouteSettings,
  prunableOrs: readonly PrunableOr[] = [],
): Route {
  const count = partitionCountOf(key, shardCount);
  const all = (): number[] => {
    const out = new Array<number>(count);
    for (let i = 0; i < count; i++) out[i] = i;
    return out;
  };
  const unit = (partition: number, lists: ReadonlyMap<number, readonly ValueSlot[]>): RouteUnit => (key.layout ? { ...placeOf(key, partition), lists } : { shard: partition, lists });
  // Plain loops below: this runs for every statement on a sharded table, once per reached partition.
  // Items of each prunable list, grouped by shard, duplicates dropped (first spelling kept).
  const perList: ListGroups[] = [];
  // Each list's partitions: its groups' map itself (its keys), or every partition.
  const known = new Map<number, { keys(): Iterable<number> }>();
  if (settings.pruning) {
    for (const list of prunableLists) {
      const groups = groupByShard(p.inLists[list]?.items ?? [], key);
      perList.push(groups);
      known.set(list, groups.everywhere.length > 0 ? new Set(all()) : groups.byShard);
    }
  }
  const selected = shardsOf(condition, p, key, known);
  if (selected !== 'all' && selected.size === 0) return { kind: 'nowhere' };
  // The naive baseline: every shard gets the statement with its lists whole.
  if (!settings.pruning) return { kind: 'units', units: all().map((partition) => unit(partition, NO_LISTS)) };
  const candidates = selected === 'all' ? all() : ascending(selected);
  // The partitions of each term of each prunable OR, worked out once.
  const orTerms = prunableOrs.length === 0 ? [] : prunableOrs.map((or) => or.terms.map((term) => shardsOf(term.condition, p, key, known)));

  const units: RouteUnit[] = [];
  for (const partition of candidates) {
    // Undefined when no list is prunable: such units share one empty map.
    let lists: Map<number, readonly ValueSlot[]> | undefined;
    let empty = false;
    for (let i = 0; i < prunableLists.length; i++) {
      const groups = perList[i]!;
      const own = groups.byShard.get(partition) ?? NONE;
      const items = groups.everywhere.length === 0 ? own : mergeInOrder(own, groups.everywhere);
      if (items.length === 0) empty = true;
      (lists ??= new Map()).set(prunableLists[i]!, items);
    }
    // An AND-ed IN list with no value on this partition: no row of it can match.
    if (empty) continue;
    const ors = orTerms.length === 0 ? undefined : keptTerms(orTerms, partition);
    // An AND-ed OR with no term that can be true on this partition: neither.
    if (ors === 'none') continue;
    const longest = lists && longestOver(lists, settings.maxInValuesPerQuery);
    if (longest === undefined) units.push(ors ? { ...unit(partition, lists ?? NO_LISTS), ors } : unit(partition, lists ?? NO_LISTS));
    else for (const batch of batches(lists!, longest, settings.maxInValuesPerQuery)) units.push(ors ? { ...unit(partition, batch), ors } : unit(partition, batch));
  }
  return units.length === 0 ? { kind: 'nowhere' } : { kind: 'units', units };
}

/** The partitions of a set, ascending (a few by insertion, with no comparator to call). */
function ascending(set: ReadonlySet<number>): number[] {
  if (set.size > 32) return [...set].sort((a, b) => a - b);
  const out = new Array<number>(set.size);
  let n = 0;
  for (const partition of set) {
    let j = n++;
    while (j > 0 && out[j - 1]! > partition) {
      out[j] = out[j - 1]!;
      j--;
    }
    out[j] = partition;
  }
  return out;
}

/** The lists of a unit that cuts none: one map, shared by every such unit (no stage writes to a unit's lists). */
const NO_LISTS: ReadonlyMap<number, readonly ValueSlot[]> = Object.freeze(new Map<number, readonly ValueSlot[]>());
const NONE: readonly ValueSlot[] = Object.freeze([]);

/** The items of one IN list by partition; `everywhere` holds the items that name no one key (see `partitionOfValue`). */
interface ListGroups {
  readonly byShard: Map<number, ValueSlot[]>;
  readonly everywhere: ValueSlot[];
}

function groupByShard(items: readonly ValueSlot[], key: ShardKeyRule): ListGroups {
  const byShard = new Map<number, ValueSlot[]>();
  const everywhere: ValueSlot[] = [];
  // Safe-integer numbers only (TypeORM's usual list): two are one key exactly when they are
  // equal (their canonical text is `String(n)`), so no canonical text is made for them.
  const numeric = allSafeIntegers(items);
  const seen = new Set<unknown>();
  for (const item of items) {
    // NULL in an IN list matches nothing.
    if (item.value === null || item.value === undefined) continue;
    const shard = partitionOfValue(item.value, key);
    if (shard === 'all') {
      everywhere.push(item);
      continue;
    }
    const canonical = numeric ? item.value : dedupeKeyOf(item.value, key);
    if (seen.has(canonical)) continue;
    seen.add(canonical);
    let list = byShard.get(shard);
    if (!list) byShard.set(shard, (list = []));
    list.push(item);
  }
  return { byShard, everywhere };
}

function allSafeIntegers(items: readonly ValueSlot[]): boolean {
  for (const item of items) if (!Number.isSafeInteger(item.value)) return false;
  return true;
}

/** Two lists of items of one IN list, in the list's order (by position in the text). */
function mergeInOrder(a: readonly ValueSlot[], b: readonly ValueSlot[]): ValueSlot[] {
  return [...a, ...b].sort((x, y) => x.start - y.start);
}

/** The list of a partition to split into batches (its longest), or undefined when every list fits in one. */
function longestOver(lists: ReadonlyMap<number, readonly ValueSlot[]>, max: number): number | undefined {
  let longest: number | undefined;
  let length = 0;
  for (const [list, items] of lists) {
    if (longest === undefined || items.length > length) {
      longest = list;
      length = items.length;
    }
  }
  return length > max ? longest : undefined;
}

/** Splits the `longest` list of a partition into batches; the other lists go whole with each batch. */
function batches(lists: Map<number, readonly ValueSlot[]>, longest: number, max: number): ReadonlyMap<number, readonly ValueSlot[]>[] {
  const items = lists.get(longest)!;
  const out: Map<number, readonly ValueSlot[]>[] = [];
  for (let i = 0; i < items.length; i += max) {
    const batch = new Map(lists);
    batch.set(longest, items.slice(i, i + max));
    out.push(batch);
  }
  return out;
}

/**
 * The terms of each OR that can be true on `partition`, for the ORs cut down there (undefined
 * when none is); `'none'` when one OR has no such term.
 */
function keptTerms(orTerms: readonly (readonly ShardSet[])[], partition: number): ReadonlyMap<number, readonly number[]> | undefined | 'none' {
  let out: Map<number, readonly number[]> | undefined;
  for (const [index, terms] of orTerms.entries()) {
    const kept: number[] = [];
    terms.forEach((shards, t) => {
      if (shards === 'all' || shards.has(partition)) kept.push(t);
    });
    if (kept.length === 0) return 'none';
    if (kept.length < terms.length) (out ??= new Map()).set(index, kept);
  }
  return out;
}

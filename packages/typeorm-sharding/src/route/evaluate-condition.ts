import { canonicalKeyString } from '../algorithms/index.js';
import { InvalidShardKeyError } from '../errors/index.js';
import { compareValues } from '../values/compare-values.js';
import type { ParameterizedSql } from '../parameterize/index.js';
import type { KeyCondition, ValueRef } from '../plan/plan.js';
import { partitionOf, type ShardKeyRule } from '../rules/index.js';

/** A set of partition indexes (shards, or shard × tables under a layout: `rules/partition.ts`), or every one. */
export type ShardSet = 'all' | Set<number>;

/**
 * Evaluates a key condition with the statement's values: the partitions that can hold rows.
 * NULL never equals anything in SQL, so NULL values select no partition.
 */
export function shardsOf(
  condition: KeyCondition,
  p: ParameterizedSql,
  key: ShardKeyRule,
  /** Shards of IN lists already grouped by the caller (so their values are not hashed twice): the keys of a set or map. */
  known?: ReadonlyMap<number, { keys(): Iterable<number> }>,
): ShardSet {
  switch (condition.kind) {
    case 'any':
      return 'all';
    case 'values': {
      const set = new Set<number>();
      for (const ref of condition.refs) {
        const grouped = ref.kind === 'in-list' ? known?.get(ref.list) : undefined;
        if (grouped) for (const shard of grouped.keys()) set.add(shard);
        else
          for (const value of valuesOf(ref, p)) {
            if (value === null || value === undefined) continue;
            const shard = partitionOfValue(value, key);
            if (shard === 'all') return 'all';
            set.add(shard);
          }
      }
      return set;
    }
    case 'const-equal': {
      // Only a comparison of two numbers is decided here (TypeORM's `0=1` for `In([])`); text
      // compares under the column's collation ('a' = 'A' may be true), so it stays open.
      const l = p.slots[condition.left]?.value;
      const r = p.slots[condition.right]?.value;
      if (l === null || l === undefined || r === null || r === undefined) return new Set();
      if (!isNumeric(l) || !isNumeric(r)) return 'all';
      return compareValues(l, r, 'numeric') === 0 ? 'all' : new Set();
    }
    case 'and': {
      let result: Set<number> | undefined;
      for (const term of condition.terms) {
        const s = shardsOf(term, p, key, known);
        if (s === 'all') continue;
        result = result === undefined ? s : intersect(result, s);
        if (result.size === 0) return result;
      }
      return result ?? 'all';
    }
    case 'or': {
      const union = new Set<number>();
      for (const term of condition.terms) {
        const s = shardsOf(term, p, key, known);
        if (s === 'all') return 'all';
        for (const i of s) union.add(i);
      }
      return union;
    }
  }
}

function valuesOf(ref: ValueRef, p: ParameterizedSql): unknown[] {
  if (ref.kind === 'slot') return [p.slots[ref.slot]?.value];
  return (p.inLists[ref.list]?.items ?? []).map((i) => i.value);
}

/**
 * The partition of a key value in a condition, or `'all'` for a value that names no one key of
 * the column (`id = 2.5`, `id = '5abc'`, a number beyond 2^53, a value the user's function
 * rejects): the database compares such a value by its own conversion rules (`'5abc'` finds row
 * 5 on MySQL, `2.5` finds nothing), so every partition is asked and answers as one database
 * would. Only writes that place a row need a partition, and refuse such a value
 * (`write/route-insert.ts`).
 *
 * A number compared with a string key names no one key either: MySQL compares a string column
 * with a number as numbers, so `code = 5` finds `'5'`, `'05'` and `'5.0'`, which hash apart.
 * (A write stores the number's text, `'5'`: its place is the text's.)
 */
export function partitionOfValue(value: unknown, key: ShardKeyRule): number | 'all' {
  if (key.kind === 'string' && (typeof value === 'number' || typeof value === 'bigint')) return 'all';
  try {
    return partitionOf(key, value);
  } catch (error) {
    if (error instanceof InvalidShardKeyError) return 'all';
    throw error;
  }
}

/** Canonical text of a key value, for de-duplicating IN items ('5', 5 and 5n are one item). */
export function dedupeKeyOf(value: unknown, key: ShardKeyRule): string {
  return canonicalKeyString(value, key.kind);
}

function intersect(a: ReadonlySet<number>, b: ReadonlySet<number>): Set<number> {
  const out = new Set<number>();
  for (const i of a) if (b.has(i)) out.add(i);
  return out;
}

function isNumeric(v: unknown): boolean {
  return typeof v === 'number' || typeof v === 'bigint' || (typeof v === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(v));
}

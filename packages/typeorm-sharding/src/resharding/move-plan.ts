import { ReshardingError } from './errors.js';

/** An inclusive run of buckets. */
export interface BucketSpan {
  readonly from: number;
  readonly to: number;
}

/**
 * The placement the mover reads and publishes: the shape of the topology store's
 * `TopologyDocument` (src/topology), restated here so that the pure planning has no I/O.
 */
export interface Placement {
  readonly version: number;
  readonly bucketCount: number;
  readonly shards: readonly { readonly name: string; readonly server: string; readonly database: string }[];
  readonly bucketMap: readonly { readonly from: number; readonly to: number; readonly shard: string }[];
}

/** What to move: bucket ranges from one shard to another (a new shard gets `server` + `database`). */
export interface MoveSpec {
  readonly source: string;
  readonly target: string;
  readonly ranges: readonly BucketSpan[];
  /** For a target shard the placement does not name yet. */
  readonly newShard?: { readonly server: string; readonly database: string };
}

/** Sorted, merged copy of `ranges` (adjacent and overlapping spans joined). */
export function normalizeSpans(ranges: readonly BucketSpan[]): BucketSpan[] {
  const sorted = [...ranges].sort((a, b) => a.from - b.from);
  const out: { from: number; to: number }[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r.from <= last.to + 1) last.to = Math.max(last.to, r.to);
    else out.push({ from: r.from, to: r.to });
  }
  return out;
}

/** True when `bucket` lies in one of `ranges`. */
export function inSpans(bucket: number, ranges: readonly BucketSpan[]): boolean {
  for (const r of ranges) if (bucket >= r.from && bucket <= r.to) return true;
  return false;
}

/** The buckets `shard` owns in `placement`, merged. */
export function spansOf(placement: Placement, shard: string): BucketSpan[] {
  return normalizeSpans(placement.bucketMap.filter((r) => r.shard === shard));
}

/**
 * Checks `spec` against the current placement and returns the placement after the move
 * (version + 1). Refused (ReshardingError `bad-plan`): source = target, an unknown source, a
 * target that is neither known nor given as `newShard` (or given although it exists), a range
 * outside the bucket count or not wholly owned by the source.
 */
export function placementAfterMove(current: Placement, spec: MoveSpec): Placement {
  const bad = (message: string): never => {
    throw new ReshardingError('bad-plan', message);
  };
  if (spec.source === spec.target) bad(`A move needs two shards; source and target are both "${spec.source}".`);
  if (!current.shards.some((s) => s.name === spec.source)) bad(`Unknown source shard "${spec.source}"; shards are ${current.shards.map((s) => s.name).join(', ')}.`);
  const targetKnown = current.shards.some((s) => s.name === spec.target);
  if (!targetKnown && !spec.newShard) bad(`Unknown target shard "${spec.target}": give its server and database to create it.`);
  if (targetKnown && spec.newShard) bad(`Shard "${spec.target}" exists already; do not give it a server and database.`);
  if (spec.ranges.length === 0) bad('A move needs at least one bucket range.');
  for (const r of spec.ranges) {
    if (!Number.isInteger(r.from) || !Number.isInteger(r.to) || r.from < 0 || r.to < r.from || r.to >= current.bucketCount) {
      bad(`Bucket range ${r.from}–${r.to} is not inside 0–${current.bucketCount - 1}.`);
    }
  }
  const moving = normalizeSpans(spec.ranges);
  const owned = spansOf(current, spec.source);
  for (const r of moving) {
    if (!owned.some((o) => o.from <= r.from && o.to >= r.to)) bad(`Buckets ${r.from}–${r.to} are not all on shard "${spec.source}".`);
  }
  const map: { from: number; to: number; shard: string }[] = [];
  for (const range of current.bucketMap) {
    if (range.shard !== spec.source) {
      map.push({ ...range });
      continue;
    }
    // Cut the source's range around the moving spans.
    let start = range.from;
    for (const m of moving) {
      if (m.to < range.from || m.from > range.to) continue;
      if (m.from > start) map.push({ from: start, to: m.from - 1, shard: spec.source });
      map.push({ from: Math.max(m.from, range.from), to: Math.min(m.to, range.to), shard: spec.target });
      start = Math.min(m.to, range.to) + 1;
    }
    if (start <= range.to) map.push({ from: start, to: range.to, shard: spec.source });
  }
  const shards = spec.newShard ? [...current.shards, { name: spec.target, ...spec.newShard }] : current.shards.map((s) => ({ ...s }));
  return { version: current.version + 1, bucketCount: current.bucketCount, shards, bucketMap: mergeMap(map) };
}

/** The placement of `after` with the moved spans given back to `source` (a rollback), version + 1 of `latest`. */
export function placementAfterRollback(latest: Placement, spec: MoveSpec): Placement {
  const back = placementAfterMove(
    { ...latest, shards: latest.shards },
    { source: spec.target, target: spec.source, ranges: spec.ranges },
  );
  return back;
}

/** `count` buckets from the start of `shard`'s first range (a quarter move), or its upper half (a split). */
export function firstBuckets(placement: Placement, shard: string, count: number): BucketSpan[] {
  const out: BucketSpan[] = [];
  let left = count;
  for (const r of spansOf(placement, shard)) {
    if (left <= 0) break;
    const take = Math.min(left, r.to - r.from + 1);
    out.push({ from: r.from, to: r.from + take - 1 });
    left -= take;
  }
  if (left > 0) throw new ReshardingError('bad-plan', `Shard "${shard}" owns fewer than ${count} buckets.`);
  return out;
}

/** The upper half of `shard`'s buckets (what a split moves to the new shard). */
export function upperHalf(placement: Placement, shard: string): BucketSpan[] {
  const spans = spansOf(placement, shard);
  const total = spans.reduce((n, r) => n + r.to - r.from + 1, 0);
  if (total < 2) throw new ReshardingError('bad-plan', `Shard "${shard}" owns ${total} bucket(s): nothing to split.`);
  let skip = Math.floor(total / 2);
  const out: BucketSpan[] = [];
  for (const r of spans) {
    const size = r.to - r.from + 1;
    if (skip >= size) {
      skip -= size;
      continue;
    }
    out.push({ from: r.from + skip, to: r.to });
    skip = 0;
  }
  return out;
}

function mergeMap(map: { from: number; to: number; shard: string }[]): { from: number; to: number; shard: string }[] {
  const sorted = map.sort((a, b) => a.from - b.from);
  const out: { from: number; to: number; shard: string }[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && last.shard === r.shard && last.to + 1 === r.from) last.to = r.to;
    else out.push({ ...r });
  }
  return out;
}

import { ShardingConfigError } from '../errors/index.js';
import { checkShardNames } from './shard-names.js';

/** Number of virtual buckets when none is configured. */
export const DEFAULT_BUCKET_COUNT = 1024;

/** Largest supported bucket count (the lookup table holds one entry per bucket). */
export const MAX_BUCKET_COUNT = 65_536;

/**
 * One contiguous run of buckets and the shard that owns it. A bucket map is a list of
 * these: plain data that can be written in configuration, diffed and reviewed, and
 * edited to move buckets between shards (after the rows have been copied).
 */
export interface BucketRange {
  /** First bucket of the range (inclusive). */
  readonly from: number;
  /** Last bucket of the range (inclusive). */
  readonly to: number;
  /** Name of the shard that holds every row whose bucket is in `[from, to]`. */
  readonly shard: string;
}

/**
 * The bucket of a key hash: `hash % bucketCount`, with `hash` an unsigned 32-bit value.
 * In SQL: `CRC32(<canonical key text>) % 1024`.
 */
export function bucketOf(hash: number, bucketCount: number): number {
  return hash % bucketCount;
}

/**
 * The default layout: buckets `0 … bucketCount − 1` cut into `shardNames.length`
 * contiguous ranges, in the order of `shardNames`. Every shard gets
 * `floor(bucketCount / n)` buckets and the first `bucketCount % n` shards one more; e.g.
 * 1024 buckets over 3 shards: `s0` 0–341, `s1` 342–682, `s2` 683–1023.
 *
 * Throws {@link ShardingConfigError} if the shard list is empty, has duplicate names, or
 * is longer than `bucketCount`, or if `bucketCount` is not an integer in
 * `[1, MAX_BUCKET_COUNT]`.
 */
export function defaultBucketMap(
  shardNames: readonly string[],
  bucketCount: number = DEFAULT_BUCKET_COUNT,
): BucketRange[] {
  checkBucketCount(bucketCount);
  checkShardNames(shardNames);
  if (shardNames.length > bucketCount) {
    throw new ShardingConfigError(
      `${shardNames.length} shards need at least as many buckets, but the bucket count is ${bucketCount}`,
    );
  }
  const base = Math.floor(bucketCount / shardNames.length);
  const extra = bucketCount % shardNames.length;
  const map: BucketRange[] = [];
  let from = 0;
  shardNames.forEach((shard, i) => {
    const size = base + (i < extra ? 1 : 0);
    map.push({ from, to: from + size - 1, shard });
    from += size;
  });
  return map;
}

/**
 * Checks that `map` assigns every bucket `0 … bucketCount − 1` to exactly one shard of
 * `shardNames`. Throws {@link ShardingConfigError} naming the offending range when a
 * range is malformed (non-integer bounds, `from > to`), out of `[0, bucketCount)`, names
 * an unknown shard, overlaps another range, or when some buckets are left unassigned.
 * A shard that owns no bucket is allowed (e.g. a new shard not yet filled).
 */
export function validateBucketMap(
  map: readonly BucketRange[],
  shardNames: readonly string[],
  bucketCount: number = DEFAULT_BUCKET_COUNT,
): void {
  buildBucketIndex(map, shardNames, bucketCount);
}

/**
 * Validates `map` (see {@link validateBucketMap}) and compiles it into a table with one
 * entry per bucket: the index in `shardNames` of the shard that owns it. Looking up a
 * bucket is then a single array read.
 */
export function buildBucketIndex(
  map: readonly BucketRange[],
  shardNames: readonly string[],
  bucketCount: number = DEFAULT_BUCKET_COUNT,
): Uint16Array {
  checkBucketCount(bucketCount);
  checkShardNames(shardNames);
  const shardIndex = new Map(shardNames.map((name, i) => [name, i]));
  map.forEach((range, i) => checkRange(range, i, shardIndex, bucketCount));

  const byStart = map.map((range, position) => ({ range, position })).sort((a, b) => a.range.from - b.range.from);
  const index = new Uint16Array(bucketCount);
  let next = 0; // first bucket not yet assigned
  let previous: { range: BucketRange; position: number } | undefined;
  for (const entry of byStart) {
    const { range } = entry;
    if (range.from > next) {
      throw new ShardingConfigError(`Bucket map leaves buckets ${span(next, range.from - 1)} unassigned`);
    }
    if (range.from < next && previous !== undefined) {
      throw new ShardingConfigError(
        `Bucket map ranges overlap: ${describeRange(previous.range, previous.position)} and ${describeRange(range, entry.position)}`,
      );
    }
    index.fill(shardIndex.get(range.shard) ?? 0, range.from, range.to + 1);
    next = range.to + 1;
    previous = entry;
  }
  if (next < bucketCount) {
    throw new ShardingConfigError(`Bucket map leaves buckets ${span(next, bucketCount - 1)} unassigned`);
  }
  return index;
}

function checkRange(range: BucketRange, position: number, shardIndex: Map<string, number>, bucketCount: number): void {
  const where = describeRange(range, position);
  if (!Number.isInteger(range.from) || !Number.isInteger(range.to)) {
    throw new ShardingConfigError(`Bucket map ${where}: bounds must be integers`);
  }
  if (range.from > range.to) {
    throw new ShardingConfigError(`Bucket map ${where}: 'from' is greater than 'to'`);
  }
  if (range.from < 0 || range.to >= bucketCount) {
    throw new ShardingConfigError(`Bucket map ${where}: out of range, buckets are 0…${bucketCount - 1}`);
  }
  if (!shardIndex.has(range.shard)) {
    throw new ShardingConfigError(
      `Bucket map ${where}: unknown shard ${JSON.stringify(range.shard)} (shards: ${[...shardIndex.keys()].join(', ')})`,
    );
  }
}

function checkBucketCount(bucketCount: number): void {
  if (!Number.isInteger(bucketCount) || bucketCount < 1 || bucketCount > MAX_BUCKET_COUNT) {
    throw new ShardingConfigError(
      `The bucket count must be an integer from 1 to ${MAX_BUCKET_COUNT}, got ${String(bucketCount)}`,
    );
  }
}

function describeRange(range: BucketRange, position: number): string {
  return `range #${position} {from: ${String(range.from)}, to: ${String(range.to)}, shard: ${JSON.stringify(range.shard)}}`;
}

function span(from: number, to: number): string {
  return from === to ? String(from) : `${from}…${to}`;
}

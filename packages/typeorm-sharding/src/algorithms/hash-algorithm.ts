import { ShardingConfigError } from '../errors/index.js';
import { buildBucketIndex, defaultBucketMap, DEFAULT_BUCKET_COUNT, type BucketRange } from './bucket-map.js';
import { hasNativeCrc32, keyHash } from './hash.js';
import { checkKeyKind, type KeyKind } from './key-kind.js';
import type { ShardingAlgorithm } from './sharding-algorithm.js';

/** Options of {@link createHashAlgorithm}. */
export interface HashAlgorithmOptions {
  /** The shards, in order; a shard's index in this list is what `shardIndexOf` returns. */
  readonly shardNames: readonly string[];
  /** Type family of the shard-key column, which decides how keys are canonicalised. */
  readonly keyKind: KeyKind;
  /** Number of virtual buckets (default 1024). Fixed for the life of the data. */
  readonly buckets?: number;
  /** Which shard owns which buckets (default: {@link defaultBucketMap}). */
  readonly bucketMap?: readonly BucketRange[];
}

/** The hash algorithm, which also exposes its layout for explain output and tooling. */
export interface HashShardingAlgorithm extends ShardingAlgorithm {
  /** Type family of the keys it accepts. */
  readonly keyKind: KeyKind;
  /** Number of virtual buckets. */
  readonly bucketCount: number;
  /** The bucket → shard assignment in force (a frozen copy). */
  readonly bucketMap: readonly BucketRange[];
  /** The bucket of `key`: `crc32(canonical key) % bucketCount`. */
  bucketOf(key: unknown): number;
}

/**
 * Hash partitioning through virtual buckets. A key's shard is found in three steps:
 *
 * 1. `h = CRC32(canonical key bytes)` — see `canonicalKey` and `crc32`;
 * 2. `bucket = h % bucketCount` (1024 by default);
 * 3. the shard whose range in the bucket map contains `bucket`.
 *
 * The bucket count is fixed once data exists; adding a shard means editing the bucket map
 * to hand it some buckets (after copying their rows), which moves only those rows. The
 * map is validated here (see `validateBucketMap`) and compiled into a per-bucket table,
 * so routing a key costs one CRC-32 and one array read.
 *
 * Throws `ShardingConfigError` for invalid options; `shardIndexOf` throws
 * `InvalidShardKeyError` for a value that cannot be a key of kind `keyKind`.
 */
export function createHashAlgorithm(options: HashAlgorithmOptions): HashShardingAlgorithm {
  if (!hasNativeCrc32()) {
    throw new ShardingConfigError('Hash sharding needs zlib.crc32, available from Node.js 20.15 / 22.2');
  }
  const { shardNames, keyKind } = options;
  checkKeyKind(keyKind);
  const bucketCount = options.buckets ?? DEFAULT_BUCKET_COUNT;
  const bucketMap = Object.freeze(
    (options.bucketMap ?? defaultBucketMap(shardNames, bucketCount)).map((range) => Object.freeze({ ...range })),
  );
  const shardOfBucket = buildBucketIndex(bucketMap, shardNames, bucketCount);

  const bucketOf = (key: unknown): number => keyHash(key, keyKind) % bucketCount;
  return {
    name: `hash(crc32, ${bucketCount} buckets)`,
    keyKind,
    bucketCount,
    bucketMap,
    bucketOf,
    shardIndexOf: (key) => shardOfBucket[bucketOf(key)]!,
    // A bucket keeps its table index whatever shard owns it (see `table-layout.ts`).
    tableIndexOf: (key, tables) => bucketOf(key) % tables,
    tableRule: (tables) => `bucket % ${tables}`,
  };
}

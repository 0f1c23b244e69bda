export type { ShardingAlgorithm, ShardingFunction } from './sharding-algorithm.js';
export { KEY_KINDS, checkKeyKind, type KeyKind } from './key-kind.js';
export { canonicalKey, canonicalKeyBytes, canonicalKeyString, type CanonicalKey } from './canonical-key.js';
export { crc32, keyHash } from './hash.js';
export { bucketSql } from './bucket-sql.js';
export {
  DEFAULT_BUCKET_COUNT,
  MAX_BUCKET_COUNT,
  bucketOf,
  buildBucketIndex,
  defaultBucketMap,
  validateBucketMap,
  type BucketRange,
} from './bucket-map.js';
export { MAX_SHARD_COUNT, checkShardCount, checkShardNames } from './shard-names.js';
export { createHashAlgorithm, type HashAlgorithmOptions, type HashShardingAlgorithm } from './hash-algorithm.js';
export { createModAlgorithm } from './mod-algorithm.js';
export { createFunctionAlgorithm } from './function-algorithm.js';
export { createAlgorithm, type ShardingAlgorithmOption } from './create-algorithm.js';
export { describeValue } from './describe-value.js';
export { createTableLayout, DEFAULT_TABLE_PATTERN, MAX_TABLES_PER_SHARD, type TableLayout, type TableLayoutOption } from './table-layout.js';

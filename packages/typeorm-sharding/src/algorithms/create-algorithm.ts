import { ShardingConfigError } from '../errors/index.js';
import type { BucketRange } from './bucket-map.js';
import { describeValue } from './describe-value.js';
import { createFunctionAlgorithm } from './function-algorithm.js';
import { createHashAlgorithm } from './hash-algorithm.js';
import type { KeyKind } from './key-kind.js';
import { createModAlgorithm } from './mod-algorithm.js';
import { checkShardNames } from './shard-names.js';
import type { ShardingAlgorithm, ShardingFunction } from './sharding-algorithm.js';

/**
 * How an entity's partitioning is declared:
 * - `'hash'` or `{ type: 'hash', buckets?, bucketMap? }`: CRC-32 over virtual buckets
 *   (the default; see `createHashAlgorithm`);
 * - `'mod'` or `{ type: 'mod' }`: integer key modulo the shard count (`createModAlgorithm`);
 * - a function `(key, shardCount) => shardIndex` (`createFunctionAlgorithm`).
 */
export type ShardingAlgorithmOption =
  | 'hash'
  | 'mod'
  | { readonly type: 'hash'; readonly buckets?: number; readonly bucketMap?: readonly BucketRange[] }
  | { readonly type: 'mod' }
  | ShardingFunction;

/**
 * Builds the algorithm that `option` declares for a table partitioned over `shardNames`
 * (in order: the algorithm returns indexes into this list) by a key column of type
 * family `keyKind`. Throws `ShardingConfigError` for an unknown option or an invalid
 * configuration.
 */
export function createAlgorithm(
  option: ShardingAlgorithmOption = 'hash',
  shardNames: readonly string[],
  keyKind: KeyKind,
): ShardingAlgorithm {
  checkShardNames(shardNames);
  if (typeof option === 'function') return createFunctionAlgorithm(option, shardNames.length);
  if (option === 'hash') return createHashAlgorithm({ shardNames, keyKind });
  if (option === 'mod') return createModAlgorithm(shardNames.length, keyKind);
  if (typeof option === 'object' && option !== null) {
    if (option.type === 'hash') {
      return createHashAlgorithm({ shardNames, keyKind, buckets: option.buckets, bucketMap: option.bucketMap });
    }
    if (option.type === 'mod') return createModAlgorithm(shardNames.length, keyKind);
  }
  throw new ShardingConfigError(
    `Unknown sharding algorithm ${describeOption(option)}; expected 'hash', 'mod', { type: 'hash' | 'mod' } or a function`,
  );
}

function describeOption(option: unknown): string {
  if (typeof option === 'object' && option !== null && 'type' in option) {
    return `{ type: ${describeValue((option as { type: unknown }).type)} }`;
  }
  return describeValue(option);
}

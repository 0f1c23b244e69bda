import { ShardingConfigError } from '../errors/index.js';

/** Largest supported number of shards (shard indexes are stored as 16-bit integers). */
export const MAX_SHARD_COUNT = 65_535;

/**
 * Checks a shard-name list: non-empty, at most {@link MAX_SHARD_COUNT} entries, each a
 * non-empty string, no duplicates. Throws {@link ShardingConfigError} otherwise.
 */
export function checkShardNames(shardNames: readonly string[]): void {
  if (!Array.isArray(shardNames) || shardNames.length === 0) {
    throw new ShardingConfigError('At least one shard is required');
  }
  if (shardNames.length > MAX_SHARD_COUNT) {
    throw new ShardingConfigError(`At most ${MAX_SHARD_COUNT} shards are supported, got ${shardNames.length}`);
  }
  const seen = new Set<string>();
  for (const name of shardNames) {
    if (typeof name !== 'string' || name === '') {
      throw new ShardingConfigError(`Shard names must be non-empty strings, got ${JSON.stringify(name)}`);
    }
    if (seen.has(name)) throw new ShardingConfigError(`Duplicate shard name ${JSON.stringify(name)}`);
    seen.add(name);
  }
}

/**
 * Checks a shard count: an integer from 1 to {@link MAX_SHARD_COUNT}. Throws
 * {@link ShardingConfigError} otherwise.
 */
export function checkShardCount(shardCount: number): void {
  if (!Number.isInteger(shardCount) || shardCount < 1 || shardCount > MAX_SHARD_COUNT) {
    throw new ShardingConfigError(
      `The shard count must be an integer from 1 to ${MAX_SHARD_COUNT}, got ${String(shardCount)}`,
    );
  }
}

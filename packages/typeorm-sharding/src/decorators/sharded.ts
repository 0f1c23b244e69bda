import 'reflect-metadata';
import type { ShardingAlgorithmOption } from '../algorithms/index.js';
import { SHARDED_KEY } from './metadata-keys.js';

/** Options of `@Sharded()`. */
export interface ShardedOptions {
  /**
   * How a shard-key value picks its shard.
   * @default 'hash' (CRC-32 of the canonical key into 1024 buckets, contiguous bucket ranges per shard)
   */
  readonly algorithm?: ShardingAlgorithmOption;
}

/**
 * Marks an entity as hash-partitioned across the shards by its `@ShardKey()` column.
 * Rows of a sharded entity live on exactly one shard; its table exists on every shard.
 */
export function Sharded(options: ShardedOptions = {}): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(SHARDED_KEY, options, target);
  };
}

/** The options `@Sharded()` recorded on a class, or undefined. */
export function getShardedOptions(target: Function): ShardedOptions | undefined {
  return Reflect.getMetadata(SHARDED_KEY, target) as ShardedOptions | undefined;
}

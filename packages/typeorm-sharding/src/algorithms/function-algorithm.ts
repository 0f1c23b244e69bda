import { InvalidShardKeyError, ShardingConfigError, ShardingError } from '../errors/index.js';
import { describeValue } from './describe-value.js';
import { checkShardCount } from './shard-names.js';
import type { ShardingAlgorithm, ShardingFunction } from './sharding-algorithm.js';

/**
 * Wraps a user-supplied {@link ShardingFunction} as a {@link ShardingAlgorithm}.
 *
 * The function receives the key exactly as the query gave it (a `number`, `string`,
 * `bigint`, …) and the shard count. It must be pure, and it must return the same shard
 * for every spelling of one key (`5`, `'5'`, `5n`): the plugin does not canonicalise keys
 * for it (`canonicalKeyString` helps).
 *
 * Its result is checked on every call: anything but an integer in `[0, shardCount)`
 * throws `InvalidShardKeyError` naming the key and the returned value. An error thrown by
 * the function is rethrown as `InvalidShardKeyError` (with the original as `cause`),
 * unless it already is a typeorm-sharding error.
 *
 * Throws `ShardingConfigError` if `fn` is not a function or `shardCount` is not an
 * integer from 1 to 65535.
 *
 * @param name - shown in explain output; defaults to `function(<fn.name>)`.
 */
export function createFunctionAlgorithm(fn: ShardingFunction, shardCount: number, name?: string): ShardingAlgorithm {
  if (typeof fn !== 'function') {
    throw new ShardingConfigError(`A sharding function must be a function, got ${describeValue(fn)}`);
  }
  checkShardCount(shardCount);
  const label = name ?? `function(${fn.name === '' ? 'anonymous' : fn.name})`;

  return {
    name: label,
    shardIndexOf(key: unknown): number {
      let index: unknown;
      try {
        index = fn(key, shardCount);
      } catch (error) {
        if (error instanceof ShardingError) throw error;
        throw new InvalidShardKeyError(`Sharding ${label} threw for key ${describeValue(key)}: ${errorMessage(error)}`, {
          cause: error,
        });
      }
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= shardCount) {
        throw new InvalidShardKeyError(
          `Sharding ${label} returned ${describeValue(index)} for key ${describeValue(key)}; ` +
            `expected an integer from 0 to ${shardCount - 1}`,
        );
      }
      return index | 0; // turns -0 into 0
    },
  };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : describeValue(error);
}

import { describe, expect, it } from 'vitest';
import { InvalidShardKeyError, ShardingConfigError } from '../errors/index.js';
import { createFunctionAlgorithm } from './function-algorithm.js';
import type { ShardingFunction } from './sharding-algorithm.js';

describe('createFunctionAlgorithm', () => {
  it('returns what the function returns, given the raw key and the shard count', () => {
    const seen: unknown[] = [];
    const byLength: ShardingFunction = (key, n) => {
      seen.push([key, n]);
      return String(key).length % n;
    };
    const algorithm = createFunctionAlgorithm(byLength, 3);
    expect(algorithm.shardIndexOf('abcd')).toBe(1);
    expect(algorithm.shardIndexOf(5n)).toBe(1);
    expect(seen).toEqual([['abcd', 3], [5n, 3]]);
    expect(algorithm.name).toBe('function(byLength)');
  });

  it('takes an explicit name, and names anonymous functions', () => {
    expect(createFunctionAlgorithm(() => 0, 1, 'by-region').name).toBe('by-region');
    expect(createFunctionAlgorithm([() => 0][0]!, 1).name).toBe('function(anonymous)');
  });

  it.each([
    ['a negative index', -1, /returned number -1 for key string "k"; expected an integer from 0 to 3/],
    ['an index past the end', 4, /returned number 4 /],
    ['a fraction', 1.5, /returned number 1\.5 /],
    ['NaN', Number.NaN, /returned number NaN /],
    ['a string', '1', /returned string "1" /],
    ['undefined', undefined, /returned undefined /],
  ])('rejects %s with InvalidShardKeyError naming the key and the value', (_label, result, message) => {
    const algorithm = createFunctionAlgorithm(() => result as number, 4);
    expect(() => algorithm.shardIndexOf('k')).toThrow(InvalidShardKeyError);
    expect(() => algorithm.shardIndexOf('k')).toThrow(message);
  });

  it('normalises -0 to 0', () => {
    expect(Object.is(createFunctionAlgorithm(() => -0, 2).shardIndexOf(1), 0)).toBe(true);
  });

  it('wraps an error thrown by the function, keeping it as the cause', () => {
    const boom = new Error('no region');
    const algorithm = createFunctionAlgorithm(() => {
      throw boom;
    }, 2, 'by-region');
    let caught: unknown;
    try {
      algorithm.shardIndexOf(7);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidShardKeyError);
    expect((caught as InvalidShardKeyError).message).toBe('Sharding by-region threw for key number 7: no region');
    expect((caught as InvalidShardKeyError).cause).toBe(boom);
  });

  it('rethrows typeorm-sharding errors from the function unchanged', () => {
    const own = new InvalidShardKeyError('bad key');
    const algorithm = createFunctionAlgorithm(() => {
      throw own;
    }, 2);
    expect(() => algorithm.shardIndexOf(1)).toThrow(own);
  });

  it('rejects a non-function and bad shard counts at creation', () => {
    expect(() => createFunctionAlgorithm('hash' as unknown as ShardingFunction, 2)).toThrow(ShardingConfigError);
    expect(() => createFunctionAlgorithm(() => 0, 0)).toThrow(ShardingConfigError);
  });
});

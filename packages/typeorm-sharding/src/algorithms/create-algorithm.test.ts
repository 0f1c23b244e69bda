import { describe, expect, it } from 'vitest';
import { ShardingConfigError } from '../errors/index.js';
import { createAlgorithm, type ShardingAlgorithmOption } from './create-algorithm.js';

const shards = ['s0', 's1', 's2', 's3'];

describe('createAlgorithm', () => {
  it('builds hash by default and for "hash"', () => {
    expect(createAlgorithm(undefined, shards, 'integer').name).toBe('hash(crc32, 1024 buckets)');
    const hash = createAlgorithm('hash', shards, 'integer');
    expect(hash.name).toBe('hash(crc32, 1024 buckets)');
    expect(hash.shardIndexOf(5)).toBe(3); // golden: bucket 942 of 1024 over 4 shards
  });

  it('passes bucket options through', () => {
    const algorithm = createAlgorithm(
      { type: 'hash', buckets: 4, bucketMap: [{ from: 0, to: 3, shard: 's2' }] },
      shards,
      'string',
    );
    expect(algorithm.name).toBe('hash(crc32, 4 buckets)');
    expect(algorithm.shardIndexOf('anything')).toBe(2);
  });

  it('builds mod from "mod" and { type: "mod" }', () => {
    for (const option of ['mod', { type: 'mod' }] as const) {
      const algorithm = createAlgorithm(option, shards, 'integer');
      expect(algorithm.name).toBe('mod(4)');
      expect([1, 2, 4, 5, 9].map((id) => algorithm.shardIndexOf(id))).toEqual([1, 2, 0, 1, 1]);
    }
    expect(() => createAlgorithm('mod', shards, 'string')).toThrow(ShardingConfigError);
  });

  it('wraps a function, giving it the number of shards', () => {
    const algorithm = createAlgorithm((_key, n) => n - 1, shards, 'string');
    expect(algorithm.shardIndexOf('x')).toBe(3);
  });

  it('rejects unknown options and bad shard lists', () => {
    expect(() => createAlgorithm('range' as ShardingAlgorithmOption, shards, 'integer')).toThrow(
      /Unknown sharding algorithm string "range"/,
    );
    expect(() => createAlgorithm({ type: 'range' } as unknown as ShardingAlgorithmOption, shards, 'integer')).toThrow(
      /Unknown sharding algorithm \{ type: string "range" \}/,
    );
    expect(() => createAlgorithm(null as unknown as ShardingAlgorithmOption, shards, 'integer')).toThrow(
      ShardingConfigError,
    );
    expect(() => createAlgorithm('hash', [], 'integer')).toThrow(ShardingConfigError);
    expect(() => createAlgorithm('mod', ['a', 'a'], 'integer')).toThrow(/Duplicate shard name/);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidShardKeyError, ShardingConfigError } from '../errors/index.js';
import { createHashAlgorithm } from './hash-algorithm.js';
import type { KeyKind } from './key-kind.js';

describe('createHashAlgorithm', () => {
  it('names itself after its hash and bucket count', () => {
    expect(createHashAlgorithm({ shardNames: ['a'], keyKind: 'integer' }).name).toBe('hash(crc32, 1024 buckets)');
    expect(createHashAlgorithm({ shardNames: ['a'], keyKind: 'integer', buckets: 64 }).name).toBe(
      'hash(crc32, 64 buckets)',
    );
  });

  it('exposes its layout as a frozen copy', () => {
    const map = [{ from: 0, to: 511, shard: 'b' }, { from: 512, to: 1023, shard: 'a' }];
    const algorithm = createHashAlgorithm({ shardNames: ['a', 'b'], keyKind: 'string', bucketMap: map });
    expect(algorithm.bucketMap).toEqual(map);
    expect(algorithm.bucketMap).not.toBe(map);
    expect(Object.isFrozen(algorithm.bucketMap)).toBe(true);
    expect(Object.isFrozen(algorithm.bucketMap[0])).toBe(true);
    expect(algorithm.bucketCount).toBe(1024);
    expect(algorithm.keyKind).toBe('string');
  });

  it('follows a custom bucket map', () => {
    // bucket('abc') = 450, bucket('') = 0 (pinned in golden-vectors.fixture.ts)
    const algorithm = createHashAlgorithm({
      shardNames: ['a', 'b', 'c'],
      keyKind: 'string',
      bucketMap: [
        { from: 0, to: 0, shard: 'c' },
        { from: 1, to: 449, shard: 'a' },
        { from: 450, to: 450, shard: 'b' },
        { from: 451, to: 1023, shard: 'a' },
      ],
    });
    expect(algorithm.shardIndexOf('abc')).toBe(1);
    expect(algorithm.shardIndexOf('')).toBe(2);
    expect(algorithm.shardIndexOf('abd')).toBe(0);
  });

  it('uses the bucket count for the modulo', () => {
    const algorithm = createHashAlgorithm({ shardNames: ['a', 'b'], keyKind: 'string', buckets: 7 });
    expect(algorithm.bucketOf('abc')).toBe(891568578 % 7);
  });

  it('always returns an index of a shard that owns the bucket', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100 }), fc.string(), (n, key) => {
        const shardNames = Array.from({ length: n }, (_, i) => `s${i}`);
        const algorithm = createHashAlgorithm({ shardNames, keyKind: 'string' });
        const index = algorithm.shardIndexOf(key);
        const bucket = algorithm.bucketOf(key);
        const range = algorithm.bucketMap.find((r) => r.from <= bucket && bucket <= r.to);
        expect(range?.shard).toBe(shardNames[index]);
      }),
    );
  });

  it('rejects invalid configuration', () => {
    expect(() => createHashAlgorithm({ shardNames: [], keyKind: 'integer' })).toThrow(ShardingConfigError);
    expect(() => createHashAlgorithm({ shardNames: ['a'], keyKind: 'date' as KeyKind })).toThrow(
      /Unknown shard key kind "date"/,
    );
    expect(() => createHashAlgorithm({ shardNames: ['a'], keyKind: 'integer', buckets: 0 })).toThrow(
      ShardingConfigError,
    );
    expect(() =>
      createHashAlgorithm({ shardNames: ['a'], keyKind: 'integer', bucketMap: [{ from: 0, to: 10, shard: 'a' }] }),
    ).toThrow(/unassigned/);
  });

  it('rejects invalid keys with InvalidShardKeyError', () => {
    const algorithm = createHashAlgorithm({ shardNames: ['a', 'b'], keyKind: 'integer' });
    expect(() => algorithm.shardIndexOf(null)).toThrow(InvalidShardKeyError);
    expect(() => algorithm.shardIndexOf('abc')).toThrow(InvalidShardKeyError);
  });
});

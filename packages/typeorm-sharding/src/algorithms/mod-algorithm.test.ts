import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidShardKeyError, ShardingConfigError } from '../errors/index.js';
import { createModAlgorithm } from './mod-algorithm.js';

describe('createModAlgorithm', () => {
  it('routes the articles example: 4 shards, ids 1, 2, 4, 5, 9 → shards 1, 2, 0, 1, 1', () => {
    const mod4 = createModAlgorithm(4);
    expect([1, 2, 4, 5, 9].map((id) => mod4.shardIndexOf(id))).toEqual([1, 2, 0, 1, 1]);
    expect(['1', '2', '4', '5', '9'].map((id) => mod4.shardIndexOf(id))).toEqual([1, 2, 0, 1, 1]);
    expect([1n, 2n, 4n, 5n, 9n].map((id) => mod4.shardIndexOf(id))).toEqual([1, 2, 0, 1, 1]);
    expect(mod4.name).toBe('mod(4)');
  });

  it('is exact beyond 2^53', () => {
    const mod10 = createModAlgorithm(10);
    expect(mod10.shardIndexOf('9007199254740993')).toBe(3);
    expect(mod10.shardIndexOf('18446744073709551615')).toBe(5);
    expect(mod10.shardIndexOf(2n ** 64n - 1n)).toBe(5);
  });

  it('puts negative keys in [0, n) with the floored modulo', () => {
    const mod4 = createModAlgorithm(4);
    expect(mod4.shardIndexOf(-1)).toBe(3);
    expect(mod4.shardIndexOf(-4)).toBe(0);
    expect(mod4.shardIndexOf(-0)).toBe(0);
    expect(Object.is(mod4.shardIndexOf(-0), 0)).toBe(true);
    expect(mod4.shardIndexOf('-5')).toBe(3);
    expect(mod4.shardIndexOf(-5n)).toBe(3);
  });

  it('matches BigInt arithmetic for every spelling of a key', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }),
        (n, k) => {
          const expected = Number(((k % BigInt(n)) + BigInt(n)) % BigInt(n));
          const algorithm = createModAlgorithm(n);
          expect(algorithm.shardIndexOf(k)).toBe(expected);
          expect(algorithm.shardIndexOf(k.toString())).toBe(expected);
          if (k >= BigInt(Number.MIN_SAFE_INTEGER) && k <= BigInt(Number.MAX_SAFE_INTEGER)) {
            expect(algorithm.shardIndexOf(Number(k))).toBe(expected);
          }
        },
      ),
    );
  });

  it('matches BigInt arithmetic for safe-integer numbers', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 65535 }), fc.maxSafeInteger(), (n, k) => {
        const expected = Number(((BigInt(k) % BigInt(n)) + BigInt(n)) % BigInt(n));
        expect(createModAlgorithm(n).shardIndexOf(k)).toBe(expected);
      }),
    );
  });

  it('rejects keys that are not integers', () => {
    const mod4 = createModAlgorithm(4);
    for (const key of [1.5, Number.NaN, 2 ** 60, 'abc', '5.0', '', null, undefined, true, {}, new Date(0)]) {
      expect(() => mod4.shardIndexOf(key)).toThrow(InvalidShardKeyError);
    }
  });

  it('rejects a string key kind and bad shard counts at creation', () => {
    expect(() => createModAlgorithm(4, 'string')).toThrow(ShardingConfigError);
    expect(() => createModAlgorithm(4, 'string')).toThrow(/needs an integer shard key/);
    for (const n of [0, -1, 1.5, Number.NaN, 65_536]) {
      expect(() => createModAlgorithm(n)).toThrow(ShardingConfigError);
    }
  });
});

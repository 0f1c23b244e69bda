import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ShardingConfigError } from '../errors/index.js';
import { buildBucketIndex, defaultBucketMap, validateBucketMap, type BucketRange } from './bucket-map.js';

const names = (n: number): string[] => Array.from({ length: n }, (_, i) => `s${i}`);

describe('defaultBucketMap', () => {
  it('gives the first bucketCount % n shards one extra bucket', () => {
    expect(defaultBucketMap(names(3))).toEqual([
      { from: 0, to: 341, shard: 's0' },
      { from: 342, to: 682, shard: 's1' },
      { from: 683, to: 1023, shard: 's2' },
    ]);
    expect(defaultBucketMap(names(4), 10)).toEqual([
      { from: 0, to: 2, shard: 's0' },
      { from: 3, to: 5, shard: 's1' },
      { from: 6, to: 7, shard: 's2' },
      { from: 8, to: 9, shard: 's3' },
    ]);
  });

  it('puts every bucket on the only shard when there is one', () => {
    expect(defaultBucketMap(['only'])).toEqual([{ from: 0, to: 1023, shard: 'only' }]);
  });

  it('covers every bucket exactly once, in shard order, with sizes differing by at most one', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4096 }), fc.integer({ min: 1, max: 300 }), (bucketCount, n) => {
        fc.pre(n <= bucketCount);
        const map = defaultBucketMap(names(n), bucketCount);
        const owners = new Array<number>(bucketCount).fill(0);
        for (const { from, to } of map) for (let b = from; b <= to; b++) owners[b]! += 1;
        expect(owners.every((count) => count === 1)).toBe(true);
        expect(map.map((r) => r.shard)).toEqual(names(n));
        const sizes = map.map((r) => r.to - r.from + 1);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        expect(() => validateBucketMap(map, names(n), bucketCount)).not.toThrow();
      }),
    );
  });

  it('rejects bad shard lists and bucket counts', () => {
    expect(() => defaultBucketMap([])).toThrow(ShardingConfigError);
    expect(() => defaultBucketMap(['a', 'a'])).toThrow(/Duplicate shard name "a"/);
    expect(() => defaultBucketMap(['a', ''])).toThrow(/non-empty strings/);
    expect(() => defaultBucketMap(names(5), 4)).toThrow(/5 shards need at least as many buckets/);
    for (const count of [0, -1, 1.5, Number.NaN, 65_537]) {
      expect(() => defaultBucketMap(names(2), count)).toThrow(/bucket count must be an integer from 1 to 65536/);
    }
  });
});

describe('validateBucketMap', () => {
  const shards = ['s0', 's1'];
  const check = (map: BucketRange[]) => () => validateBucketMap(map, shards, 16);

  it('accepts a full, disjoint map in any order, including one that leaves a shard empty', () => {
    expect(check([{ from: 8, to: 15, shard: 's1' }, { from: 0, to: 7, shard: 's0' }])).not.toThrow();
    expect(check([{ from: 0, to: 15, shard: 's1' }])).not.toThrow();
    expect(
      check([
        { from: 0, to: 3, shard: 's0' },
        { from: 4, to: 4, shard: 's1' },
        { from: 5, to: 15, shard: 's0' },
      ]),
    ).not.toThrow();
  });

  it('rejects overlapping ranges, naming both', () => {
    const map = [{ from: 0, to: 8, shard: 's0' }, { from: 8, to: 15, shard: 's1' }];
    expect(check(map)).toThrow(ShardingConfigError);
    expect(check(map)).toThrow(
      'Bucket map ranges overlap: range #0 {from: 0, to: 8, shard: "s0"} and range #1 {from: 8, to: 15, shard: "s1"}',
    );
  });

  it('rejects a range inside another', () => {
    expect(check([{ from: 0, to: 15, shard: 's0' }, { from: 4, to: 5, shard: 's1' }])).toThrow(/overlap/);
  });

  it('rejects gaps at the start, the middle and the end', () => {
    expect(check([{ from: 1, to: 15, shard: 's0' }])).toThrow('Bucket map leaves buckets 0 unassigned');
    expect(check([{ from: 0, to: 5, shard: 's0' }, { from: 9, to: 15, shard: 's1' }])).toThrow(
      'Bucket map leaves buckets 6…8 unassigned',
    );
    expect(check([{ from: 0, to: 13, shard: 's0' }])).toThrow('Bucket map leaves buckets 14…15 unassigned');
    expect(check([])).toThrow('Bucket map leaves buckets 0…15 unassigned');
  });

  it('rejects an unknown shard', () => {
    expect(check([{ from: 0, to: 15, shard: 's9' }])).toThrow(
      'Bucket map range #0 {from: 0, to: 15, shard: "s9"}: unknown shard "s9" (shards: s0, s1)',
    );
  });

  it('rejects ranges out of [0, bucketCount)', () => {
    expect(check([{ from: 0, to: 16, shard: 's0' }])).toThrow(/out of range, buckets are 0…15/);
    expect(check([{ from: -1, to: 15, shard: 's0' }])).toThrow(/out of range/);
  });

  it('rejects malformed ranges', () => {
    expect(check([{ from: 9, to: 3, shard: 's0' }])).toThrow(/'from' is greater than 'to'/);
    expect(check([{ from: 0, to: 15.5, shard: 's0' }])).toThrow(/bounds must be integers/);
    expect(check([{ from: Number.NaN, to: 15, shard: 's0' }])).toThrow(/bounds must be integers/);
  });

  it('throws ShardingConfigError for every kind of mistake', () => {
    const bad: BucketRange[][] = [
      [{ from: 0, to: 8, shard: 's0' }, { from: 8, to: 15, shard: 's1' }],
      [{ from: 0, to: 5, shard: 's0' }],
      [{ from: 0, to: 15, shard: 'nope' }],
      [{ from: 0, to: 99, shard: 's0' }],
    ];
    for (const map of bad) expect(check(map)).toThrow(ShardingConfigError);
  });
});

describe('buildBucketIndex', () => {
  it('maps each bucket to the index of its shard', () => {
    const index = buildBucketIndex(
      [{ from: 0, to: 1, shard: 's1' }, { from: 2, to: 2, shard: 's0' }, { from: 3, to: 3, shard: 's2' }],
      ['s0', 's1', 's2'],
      4,
    );
    expect([...index]).toEqual([1, 1, 0, 2]);
  });
});

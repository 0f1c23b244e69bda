import { describe, expect, it } from 'vitest';
import { validateBucketMap } from '../algorithms/index.js';
import { ReshardingError } from './errors.js';
import { firstBuckets, inSpans, normalizeSpans, placementAfterMove, placementAfterRollback, upperHalf, type Placement } from './move-plan.js';

const V1: Placement = {
  version: 1,
  bucketCount: 1024,
  shards: [
    { name: 's0', server: 'a', database: 'd0' },
    { name: 's1', server: 'a', database: 'd1' },
  ],
  bucketMap: [
    { from: 0, to: 511, shard: 's0' },
    { from: 512, to: 1023, shard: 's1' },
  ],
};

const problemOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (error) {
    return error instanceof ReshardingError ? error.problem : 'other';
  }
  return undefined;
};

describe('move plans', () => {
  it('cuts the source range around the moving spans and adds a new shard', () => {
    const after = placementAfterMove(V1, { source: 's0', target: 's2', ranges: [{ from: 100, to: 199 }, { from: 200, to: 227 }], newShard: { server: 'b', database: 'd2' } });
    expect(after.version).toBe(2);
    expect(after.bucketMap).toEqual([
      { from: 0, to: 99, shard: 's0' },
      { from: 100, to: 227, shard: 's2' },
      { from: 228, to: 511, shard: 's0' },
      { from: 512, to: 1023, shard: 's1' },
    ]);
    expect(after.shards.map((s) => s.name)).toEqual(['s0', 's1', 's2']);
    validateBucketMap(after.bucketMap, after.shards.map((s) => s.name), 1024);
  });

  it('a rollback gives the spans back and merges the ranges again', () => {
    const spec = { source: 's0', target: 's2', ranges: [{ from: 0, to: 127 }], newShard: { server: 'b', database: 'd2' } };
    const back = placementAfterRollback(placementAfterMove(V1, spec), spec);
    expect(back.version).toBe(3);
    expect(back.bucketMap).toEqual(V1.bucketMap);
  });

  it('refuses what cannot be moved', () => {
    expect(problemOf(() => placementAfterMove(V1, { source: 's0', target: 's0', ranges: [{ from: 0, to: 1 }] }))).toBe('bad-plan');
    expect(problemOf(() => placementAfterMove(V1, { source: 's0', target: 's9', ranges: [{ from: 0, to: 1 }] }))).toBe('bad-plan');
    expect(problemOf(() => placementAfterMove(V1, { source: 's0', target: 's1', ranges: [{ from: 500, to: 520 }] }))).toBe('bad-plan');
    expect(problemOf(() => placementAfterMove(V1, { source: 's0', target: 's1', ranges: [{ from: 0, to: 1024 }] }))).toBe('bad-plan');
    expect(problemOf(() => placementAfterMove(V1, { source: 's0', target: 's1', ranges: [] }))).toBe('bad-plan');
    expect(problemOf(() => placementAfterMove(V1, { source: 's0', target: 's1', ranges: [{ from: 0, to: 1 }], newShard: { server: 'a', database: 'x' } }))).toBe('bad-plan');
    expect(problemOf(() => placementAfterMove(V1, { source: 'zz', target: 's1', ranges: [{ from: 0, to: 1 }] }))).toBe('bad-plan');
  });

  it('a split takes the upper half, a quarter move the first quarter', () => {
    expect(upperHalf(V1, 's1')).toEqual([{ from: 768, to: 1023 }]);
    expect(firstBuckets(V1, 's0', 128)).toEqual([{ from: 0, to: 127 }]);
    const holed = placementAfterMove(V1, { source: 's0', target: 's1', ranges: [{ from: 100, to: 411 }] });
    // s0 keeps 0–99 and 412–511 (200 buckets): the upper 100 are 412–511.
    expect(upperHalf(holed, 's0')).toEqual([{ from: 412, to: 511 }]);
    expect(problemOf(() => firstBuckets(V1, 's0', 513))).toBe('bad-plan');
  });

  it('normalises spans and tests membership', () => {
    expect(normalizeSpans([{ from: 5, to: 9 }, { from: 0, to: 4 }, { from: 20, to: 30 }, { from: 25, to: 26 }])).toEqual([
      { from: 0, to: 9 },
      { from: 20, to: 30 },
    ]);
    expect(inSpans(9, [{ from: 0, to: 9 }])).toBe(true);
    expect(inSpans(10, [{ from: 0, to: 9 }])).toBe(false);
  });
});

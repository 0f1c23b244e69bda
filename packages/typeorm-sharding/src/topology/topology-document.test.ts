import { describe, expect, it } from 'vitest';
import { defaultBucketMap } from '../algorithms/index.js';
import { reassignBuckets, validateTopologyDocument, type TopologyDocument } from './topology-document.js';
import { TopologyDocumentError } from './topology-errors.js';

const v1: TopologyDocument = {
  version: 1,
  bucketCount: 16,
  shards: [
    { name: 's0', server: 'a', database: 'shop_0' },
    { name: 's1', server: 'a', database: 'shop_1' },
  ],
  bucketMap: defaultBucketMap(['s0', 's1'], 16),
};

describe('topology documents', () => {
  it('accepts a document whose buckets are each owned once by a shard on a known server', () => {
    expect(() => validateTopologyDocument(v1, { servers: ['a'] })).not.toThrow();
  });

  it.each([
    ['a bucket left unowned', { ...v1, bucketMap: [{ from: 0, to: 7, shard: 's0' }, { from: 9, to: 15, shard: 's1' }] }, /unassigned/],
    ['a bucket owned twice', { ...v1, bucketMap: [{ from: 0, to: 8, shard: 's0' }, { from: 8, to: 15, shard: 's1' }] }, /overlap/],
    ['a range naming an unlisted shard', { ...v1, bucketMap: [{ from: 0, to: 15, shard: 's9' }] }, /unknown shard/],
    ['a shard on an unknown server', { ...v1, shards: [v1.shards[0]!, { name: 's1', server: 'b', database: 'x' }] }, /not a configured server/],
    ['a duplicate shard', { ...v1, shards: [v1.shards[0]!, v1.shards[0]!] }, /listed twice/],
    ['version 0', { ...v1, version: 0 }, /positive integer/],
    ['an empty shard list', { ...v1, shards: [] }, /at least one shard/],
    ['a bucket count out of range', { ...v1, bucketCount: 0 }, /bucket count/],
  ])('refuses %s', (_, document, message) => {
    expect(() => validateTopologyDocument(document as TopologyDocument, { servers: ['a'] })).toThrow(TopologyDocumentError);
    expect(() => validateTopologyDocument(document as TopologyDocument, { servers: ['a'] })).toThrow(message);
  });

  it('refuses a new version that changes the bucket count or moves a shard in place', () => {
    expect(() => validateTopologyDocument({ ...v1, version: 2, bucketCount: 32, bucketMap: defaultBucketMap(['s0', 's1'], 32) }, { previous: v1 })).toThrow(/bucket count is fixed/);
    const moved = { ...v1, version: 2, shards: [v1.shards[0]!, { name: 's1', server: 'a', database: 'other' }] };
    expect(() => validateTopologyDocument(moved, { previous: v1 })).toThrow(/place is fixed/);
  });

  it('reassigns bucket ranges to a shard and compacts the map', () => {
    const v2 = reassignBuckets(v1, [{ from: 6, to: 7 }], 's2', { name: 's2', server: 'a', database: 'shop_2' });
    expect(v2.version).toBe(2);
    expect(v2.bucketMap).toEqual([
      { from: 0, to: 5, shard: 's0' },
      { from: 6, to: 7, shard: 's2' },
      { from: 8, to: 15, shard: 's1' },
    ]);
    const back = reassignBuckets(v2, [{ from: 6, to: 7 }], 's0');
    expect(back.bucketMap).toEqual(v1.bucketMap);
    expect(() => reassignBuckets(v1, [{ from: 0, to: 16 }], 's1')).toThrow(TopologyDocumentError);
    expect(() => reassignBuckets(v1, [{ from: 0, to: 1 }], 's7')).toThrow(/not in topology/);
  });
});

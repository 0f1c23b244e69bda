import { describe, expect, it } from 'vitest';
import { defaultBucketMap } from './bucket-map.js';
import { canonicalKeyString } from './canonical-key.js';
import { GOLDEN_VECTORS } from './golden-vectors.fixture.js';
import { crc32, keyHash } from './hash.js';
import { createHashAlgorithm } from './hash-algorithm.js';

// The expected values live in golden-vectors.fixture.ts. Changing them moves users' data:
// never update them to make a test pass.

const names = (n: number): string[] => Array.from({ length: n }, (_, i) => `s${i}`);

describe('golden vectors (pinned data layout)', () => {
  it.each(GOLDEN_VECTORS)('$kind key $input', (v) => {
    const four = createHashAlgorithm({ shardNames: names(4), keyKind: v.kind });
    const sixtyFour = createHashAlgorithm({ shardNames: names(64), keyKind: v.kind });

    expect(canonicalKeyString(v.input, v.kind)).toBe(v.canonical);
    expect(crc32(v.canonical)).toBe(v.crc32);
    expect(crc32(Buffer.from(v.canonical, 'utf8'))).toBe(v.crc32);
    expect(keyHash(v.input, v.kind)).toBe(v.crc32);
    expect(four.bucketOf(v.input)).toBe(v.bucket);
    expect(four.shardIndexOf(v.input)).toBe(v.shardOf4);
    expect(sixtyFour.shardIndexOf(v.input)).toBe(v.shardOf64);
  });

  it('pins the default layouts of 4 and 64 shards over 1024 buckets', () => {
    expect(defaultBucketMap(names(4))).toEqual([
      { from: 0, to: 255, shard: 's0' },
      { from: 256, to: 511, shard: 's1' },
      { from: 512, to: 767, shard: 's2' },
      { from: 768, to: 1023, shard: 's3' },
    ]);
    const map64 = defaultBucketMap(names(64));
    expect(map64).toHaveLength(64);
    map64.forEach((range, i) => expect(range).toEqual({ from: 16 * i, to: 16 * i + 15, shard: `s${i}` }));
  });

  it('pins the CRC-32 check value of the standard ("123456789" → 0xCBF43926)', () => {
    expect(crc32('123456789')).toBe(0xcbf43926);
  });
});

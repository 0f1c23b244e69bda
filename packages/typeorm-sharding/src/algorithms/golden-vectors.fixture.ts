import type { KeyKind } from './key-kind.js';

/** One pinned routing result: a key as an application may pass it, and where it must go. */
export interface GoldenVector {
  readonly kind: KeyKind;
  readonly input: number | bigint | string;
  /** Canonical text; CRC-32 is taken over its UTF-8 bytes. */
  readonly canonical: string;
  readonly crc32: number;
  /** crc32 % 1024. */
  readonly bucket: number;
  /** Shard index with 4 shards and the default map of 1024 buckets (256 each). */
  readonly shardOf4: number;
  /** Shard index with 64 shards and the default map of 1024 buckets (16 each). */
  readonly shardOf64: number;
}

/**
 * GOLDEN VECTORS — where users' rows live.
 *
 * These were computed once, independently of this code, with Python
 * (`zlib.crc32(canonical.encode('utf-8'))`, then `% 1024`, then `// 256` and `// 16`) and
 * are checked against MariaDB's CRC32() by test/hash-mariadb-agreement.test.ts.
 *
 * Changing any of them means existing rows are on the wrong shard: users' data moves.
 * Never update them to make a test pass; a failing golden test is a broken release.
 */
export const GOLDEN_VECTORS: readonly GoldenVector[] = [
  { kind: 'integer', input: 0, canonical: '0', crc32: 4108050209, bucket: 801, shardOf4: 3, shardOf64: 50 },
  { kind: 'integer', input: 1, canonical: '1', crc32: 2212294583, bucket: 951, shardOf4: 3, shardOf64: 59 },
  { kind: 'integer', input: 5, canonical: '5', crc32: 2226203566, bucket: 942, shardOf4: 3, shardOf64: 58 },
  { kind: 'integer', input: 42, canonical: '42', crc32: 841265288, bucket: 136, shardOf4: 0, shardOf64: 8 },
  { kind: 'integer', input: 1000000, canonical: '1000000', crc32: 469554653, bucket: 477, shardOf4: 1, shardOf64: 29 },
  { kind: 'integer', input: -1, canonical: '-1', crc32: 808273962, bucket: 42, shardOf4: 0, shardOf64: 2 },
  // 2^53 and 2^53 + 1: one apart, but a JS number cannot tell them apart.
  { kind: 'integer', input: '9007199254740992', canonical: '9007199254740992', crc32: 1412714401, bucket: 929, shardOf4: 3, shardOf64: 58 },
  { kind: 'integer', input: '9007199254740993', canonical: '9007199254740993', crc32: 590577463, bucket: 823, shardOf4: 3, shardOf64: 51 },
  // Largest BIGINT UNSIGNED and smallest BIGINT.
  { kind: 'integer', input: 18446744073709551615n, canonical: '18446744073709551615', crc32: 3221115162, bucket: 282, shardOf4: 1, shardOf64: 17 },
  { kind: 'integer', input: '-9223372036854775808', canonical: '-9223372036854775808', crc32: 2871333643, bucket: 779, shardOf4: 3, shardOf64: 48 },
  { kind: 'string', input: 'abc', canonical: 'abc', crc32: 891568578, bucket: 450, shardOf4: 1, shardOf64: 28 },
  // 'Zürich' (precomposed ü, U+00FC) and '日本': multi-byte UTF-8.
  { kind: 'string', input: 'Z\u00fcrich', canonical: 'Z\u00fcrich', crc32: 3540756798, bucket: 318, shardOf4: 1, shardOf64: 19 },
  { kind: 'string', input: '', canonical: '', crc32: 0, bucket: 0, shardOf4: 0, shardOf64: 0 },
  { kind: 'string', input: '\u65e5\u672c', canonical: '\u65e5\u672c', crc32: 3350711756, bucket: 460, shardOf4: 1, shardOf64: 28 },
  { kind: 'string', input: '550e8400-e29b-41d4-a716-446655440000', canonical: '550e8400-e29b-41d4-a716-446655440000', crc32: 3225157873, bucket: 241, shardOf4: 0, shardOf64: 15 },
  { kind: 'string', input: 'user@example.com', canonical: 'user@example.com', crc32: 1634596257, bucket: 417, shardOf4: 1, shardOf64: 26 },
];

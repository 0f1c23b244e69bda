import type { KeyKind } from './key-kind.js';

/** One pinned placement of a key in a table-per-shard layout: its shard and its table there. */
export interface TableGoldenVector {
  readonly algorithm: 'hash' | 'mod';
  readonly kind: KeyKind;
  readonly input: number | bigint | string;
  /** Shard index with 4 shards (hash: the default map of 1024 buckets, 256 each). */
  readonly shardOf4: number;
  /** Table index with 4 tables per shard database. */
  readonly tableOf4: number;
  /** Table index with 3 tables per shard database (a count that does not divide the 1024 buckets). */
  readonly tableOfOther: number;
}

/**
 * GOLDEN VECTORS — which physical table holds a row.
 *
 * Computed once, independently of this code, with Python: hash —
 * `b = zlib.crc32(canonical.encode('utf-8')) % 1024`, shard `b // 256`, table `b % 4` (and
 * `b % 3`); mod — shard `k % 4`, table `(k // 4) % 4` (and `(k // 4) % 3`), Python's floored
 * `//` and `%`. Changing any of them moves users' rows between tables: never update them to
 * make a test pass.
 */
export const TABLE_GOLDEN_VECTORS: readonly TableGoldenVector[] = [
  { algorithm: 'hash', kind: 'integer', input: 0, shardOf4: 3, tableOf4: 1, tableOfOther: 0 },
  { algorithm: 'hash', kind: 'integer', input: 1, shardOf4: 3, tableOf4: 3, tableOfOther: 0 },
  { algorithm: 'hash', kind: 'integer', input: 5, shardOf4: 3, tableOf4: 2, tableOfOther: 0 },
  { algorithm: 'hash', kind: 'integer', input: 42, shardOf4: 0, tableOf4: 0, tableOfOther: 1 },
  { algorithm: 'hash', kind: 'integer', input: 1000000, shardOf4: 1, tableOf4: 1, tableOfOther: 0 },
  { algorithm: 'hash', kind: 'integer', input: -1, shardOf4: 0, tableOf4: 2, tableOfOther: 0 },
  { algorithm: 'hash', kind: 'integer', input: '9007199254740992', shardOf4: 3, tableOf4: 1, tableOfOther: 2 },
  { algorithm: 'hash', kind: 'integer', input: '9007199254740993', shardOf4: 3, tableOf4: 3, tableOfOther: 1 },
  { algorithm: 'hash', kind: 'integer', input: 18446744073709551615n, shardOf4: 1, tableOf4: 2, tableOfOther: 0 },
  { algorithm: 'hash', kind: 'integer', input: '-9223372036854775808', shardOf4: 3, tableOf4: 3, tableOfOther: 2 },
  { algorithm: 'hash', kind: 'string', input: 'abc', shardOf4: 1, tableOf4: 2, tableOfOther: 0 },
  { algorithm: 'hash', kind: 'string', input: 'Z\u00fcrich', shardOf4: 1, tableOf4: 2, tableOfOther: 0 },
  { algorithm: 'hash', kind: 'string', input: '', shardOf4: 0, tableOf4: 0, tableOfOther: 0 },
  { algorithm: 'hash', kind: 'string', input: '\u65e5\u672c', shardOf4: 1, tableOf4: 0, tableOfOther: 1 },
  { algorithm: 'hash', kind: 'string', input: '550e8400-e29b-41d4-a716-446655440000', shardOf4: 0, tableOf4: 1, tableOfOther: 1 },
  { algorithm: 'hash', kind: 'string', input: 'user@example.com', shardOf4: 1, tableOf4: 1, tableOfOther: 0 },
  { algorithm: 'mod', kind: 'integer', input: 0, shardOf4: 0, tableOf4: 0, tableOfOther: 0 },
  { algorithm: 'mod', kind: 'integer', input: 1, shardOf4: 1, tableOf4: 0, tableOfOther: 0 },
  { algorithm: 'mod', kind: 'integer', input: 4, shardOf4: 0, tableOf4: 1, tableOfOther: 1 },
  { algorithm: 'mod', kind: 'integer', input: 5, shardOf4: 1, tableOf4: 1, tableOfOther: 1 },
  { algorithm: 'mod', kind: 'integer', input: 9, shardOf4: 1, tableOf4: 2, tableOfOther: 2 },
  { algorithm: 'mod', kind: 'integer', input: 15, shardOf4: 3, tableOf4: 3, tableOfOther: 0 },
  { algorithm: 'mod', kind: 'integer', input: 16, shardOf4: 0, tableOf4: 0, tableOfOther: 1 },
  { algorithm: 'mod', kind: 'integer', input: '42', shardOf4: 2, tableOf4: 2, tableOfOther: 1 },
  { algorithm: 'mod', kind: 'integer', input: -1, shardOf4: 3, tableOf4: 3, tableOfOther: 2 },
  { algorithm: 'mod', kind: 'integer', input: -4, shardOf4: 0, tableOf4: 3, tableOfOther: 2 },
  { algorithm: 'mod', kind: 'integer', input: -5, shardOf4: 3, tableOf4: 2, tableOfOther: 1 },
  { algorithm: 'mod', kind: 'integer', input: -17, shardOf4: 3, tableOf4: 3, tableOfOther: 1 },
  { algorithm: 'mod', kind: 'integer', input: 1000000, shardOf4: 0, tableOf4: 0, tableOfOther: 1 },
  { algorithm: 'mod', kind: 'integer', input: '9007199254740993', shardOf4: 1, tableOf4: 0, tableOfOther: 2 },
  { algorithm: 'mod', kind: 'integer', input: 18446744073709551615n, shardOf4: 3, tableOf4: 3, tableOfOther: 0 },
  { algorithm: 'mod', kind: 'integer', input: '-9223372036854775808', shardOf4: 0, tableOf4: 0, tableOfOther: 1 },
];

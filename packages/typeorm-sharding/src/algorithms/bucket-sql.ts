import type { KeyKind } from './key-kind.js';

/**
 * The SQL (MySQL/MariaDB) expression that computes, inside the database, the bucket of the
 * row whose shard-key column is `column` (already quoted): the same number as
 * `HashShardingAlgorithm.bucketOf(value)`. Resharding uses it to copy, checksum and fence one
 * bucket range without reading keys into Node.
 *
 * - integer keys hash their minimal decimal text, which is what `CAST(col AS CHAR)` gives for
 *   an integer column;
 * - string keys hash their UTF-8 bytes; `CONVERT(… USING utf8mb4)` makes that true whatever
 *   the column's character set (a binary column hashes its own bytes: `CRC32(col)`).
 *
 * SQLite has no CRC32(); its offline move computes buckets in Node.
 */
export function bucketSql(column: string, keyKind: KeyKind, bucketCount: number, binary = false): string {
  const bytes = keyKind === 'integer' ? `CAST(${column} AS CHAR)` : binary ? column : `CONVERT(${column} USING utf8mb4)`;
  return `(CRC32(${bytes}) % ${bucketCount})`;
}

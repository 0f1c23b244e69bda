import type { Connection } from 'mysql2/promise';
import { bucketCondition } from './bucket-filter.js';
import { quoteId, rows } from './endpoint.js';
import type { TableShape } from './governed-tables.js';
import type { BucketSpan } from './move-plan.js';
import type { VerifyResult } from './move-store.js';

/** Buckets per checksum chunk. @default 64 */
export const DEFAULT_VERIFY_CHUNK_BUCKETS = 64;

/**
 * The text a row is checksummed by: every column's bytes in hex (`HEX(CAST(col AS BINARY))`),
 * so two strings equal under the column's collation but not byte for byte ('a' and 'A' under a
 * case-insensitive collation, trailing spaces under PAD SPACE) differ, and two equal values
 * never differ because of the connection's character set. NULL is spelled `N`, which no hex
 * text contains.
 */
export function rowTextSql(shape: TableShape): string {
  return `CONCAT_WS('|', ${shape.columns.map((c) => `COALESCE(HEX(CAST(${quoteId(c)} AS BINARY)), 'N')`).join(', ')})`;
}

/** The moving spans cut into chunks of at most `size` buckets. */
export function chunkSpans(spans: readonly BucketSpan[], size: number): BucketSpan[] {
  const out: BucketSpan[] = [];
  for (const s of spans) for (let from = s.from; from <= s.to; from += size) out.push({ from, to: Math.min(s.to, from + size - 1) });
  return out;
}

interface ChunkSum {
  readonly count: number;
  readonly checksum: string;
}

async function chunkSum(conn: Connection, database: string, shape: TableShape, bucketCount: number, chunk: BucketSpan): Promise<ChunkSum> {
  const [row] = await rows<{ c: number | string; x: string | number | null }>(
    conn,
    `SELECT COUNT(*) AS c, BIT_XOR(CRC32(${rowTextSql(shape)})) AS x FROM ${quoteId(database)}.${quoteId(shape.table)} WHERE ${bucketCondition(shape, bucketCount, [chunk])}`,
  );
  return { count: Number(row?.c ?? 0), checksum: String(row?.x ?? '0') };
}

/** Primary key (as JSON) → row checksum of one chunk. */
async function rowSums(conn: Connection, database: string, shape: TableShape, bucketCount: number, chunk: BucketSpan): Promise<Map<string, string>> {
  const list = await rows<Record<string, unknown>>(
    conn,
    `SELECT ${shape.primaryKey.map(quoteId).join(', ')}, CRC32(${rowTextSql(shape)}) AS tsh_crc, ${rowTextSql(shape)} AS tsh_text FROM ${quoteId(database)}.${quoteId(shape.table)} WHERE ${bucketCondition(shape, bucketCount, [chunk])}`,
  );
  return new Map(list.map((r) => [JSON.stringify(shape.primaryKey.map((c) => r[c])), String(r.tsh_text)]));
}

/** Compares one chunk row by row and names the keys that differ. */
async function drillDown(source: Connection, sourceDb: string, target: Connection, targetDb: string, shape: TableShape, bucketCount: number, chunk: BucketSpan): Promise<VerifyResult['mismatches']> {
  const [a, b] = [await rowSums(source, sourceDb, shape, bucketCount, chunk), await rowSums(target, targetDb, shape, bucketCount, chunk)];
  const out: { key: unknown[]; kind: 'differs' | 'missing' | 'extra' }[] = [];
  for (const [key, text] of a) {
    const other = b.get(key);
    if (other === undefined) out.push({ key: JSON.parse(key) as unknown[], kind: 'missing' });
    else if (other !== text) out.push({ key: JSON.parse(key) as unknown[], kind: 'differs' });
  }
  for (const key of b.keys()) if (!a.has(key)) out.push({ key: JSON.parse(key) as unknown[], kind: 'extra' });
  return out;
}

/** One table's verify, from `startChunk`; `onChunk` persists progress after each chunk. */
export async function verifyTable(
  job: { readonly source: Connection; readonly sourceDb: string; readonly target: Connection; readonly targetDb: string; readonly bucketCount: number },
  shape: TableShape,
  chunks: readonly BucketSpan[],
  resume: { readonly afterBucket: number | undefined; readonly result: VerifyResult | undefined },
  onChunk: (upTo: number, result: VerifyResult) => Promise<void>,
): Promise<VerifyResult> {
  let result: VerifyResult = resume.result ?? { chunks: 0, rows: 0, mismatches: [] };
  for (const chunk of chunks) {
    if (resume.afterBucket !== undefined && chunk.to <= resume.afterBucket) continue;
    const [a, b] = [await chunkSum(job.source, job.sourceDb, shape, job.bucketCount, chunk), await chunkSum(job.target, job.targetDb, shape, job.bucketCount, chunk)];
    let mismatches = result.mismatches;
    if (a.count !== b.count || a.checksum !== b.checksum) {
      mismatches = [...mismatches, ...(await drillDown(job.source, job.sourceDb, job.target, job.targetDb, shape, job.bucketCount, chunk))];
    }
    result = { chunks: result.chunks + 1, rows: result.rows + a.count, mismatches };
    await onChunk(chunk.to, result);
  }
  return result;
}

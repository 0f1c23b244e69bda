import { bucketSql, keyHash } from '../algorithms/index.js';
import type { BucketSpan } from './move-plan.js';
import { inSpans } from './move-plan.js';
import { quoteId } from './endpoint.js';
import type { TableShape } from './governed-tables.js';

/** SQL condition: the row's bucket (computed by the server, see bucketSql) is in one of `spans`. */
export function bucketCondition(shape: TableShape, bucketCount: number, spans: readonly BucketSpan[]): string {
  const bucket = bucketSql(quoteId(shape.keyColumn!), shape.keyKind!, bucketCount, shape.binaryColumns.includes(shape.keyColumn!));
  return '(' + spans.map((s) => (s.from === s.to ? `${bucket} = ${s.from}` : `${bucket} BETWEEN ${s.from} AND ${s.to}`)).join(' OR ') + ')';
}

/** The bucket of a full row image, computed in Node the way the hash algorithm does. */
export function bucketOfRow(shape: TableShape, bucketCount: number, row: Record<string, unknown>): number {
  const value = row[shape.keyColumn!];
  return keyHash(Buffer.isBuffer(value) ? value.toString('utf8') : value, shape.keyKind!) % bucketCount;
}

/** True when the row image's bucket is moving. */
export function rowIsMoving(shape: TableShape, bucketCount: number, spans: readonly BucketSpan[], row: Record<string, unknown>): boolean {
  return inSpans(bucketOfRow(shape, bucketCount, row), spans);
}

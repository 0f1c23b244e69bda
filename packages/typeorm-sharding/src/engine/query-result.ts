import { QueryResult } from 'typeorm';
import type { Row } from '../merge/index.js';
import { UnsupportedShardingError } from '../errors/index.js';

/** A result of rows, shaped as TypeORM's drivers shape SELECT results. */
export function rowsResult(rows: Row[]): QueryResult {
  const result = new QueryResult();
  result.records = rows;
  result.raw = rows;
  return result;
}

/**
 * The result of several writes to disjoint rows (one per shard or batch): counts added up,
 * `raw` shaped like the driver's. A write routed nowhere (`In([])`) affected 0 rows.
 */
export function writesResult(parts: readonly QueryResult[], dialect: 'mysql' | 'sqlite', rowsOf?: readonly (readonly number[])[]): QueryResult {
  if (parts.length === 1) return parts[0]!;
  const result = new QueryResult();
  const affected = parts.reduce((sum, r) => sum + (r.affected ?? 0), 0);
  result.affected = affected;
  result.records = rowsOf ? inRowOrder(parts, rowsOf) : parts.flatMap((r) => r.records ?? []);
  if (dialect === 'mysql') {
    const headers = parts.map((r) => (r.raw ?? {}) as Record<string, unknown>);
    const first = headers[0] ?? {};
    // mysql2's ResultSetHeader: insertId means nothing across shards (no auto-increment on sharded tables).
    result.raw = Array.isArray(first)
      ? result.records
      : { ...ZERO_HEADER, ...first, affectedRows: affected, changedRows: sumOf(headers, 'changedRows'), warningStatus: sumOf(headers, 'warningStatus'), insertId: 0, info: infoOf(headers) };
  } else {
    result.raw = parts[0]?.raw ?? 0;
  }
  return result;
}

/** What mysql2 reports for a write that matched nothing. */
const ZERO_HEADER = { fieldCount: 0, affectedRows: 0, insertId: 0, info: '', serverStatus: 2, warningStatus: 0, changedRows: 0 };

function sumOf(headers: readonly Record<string, unknown>[], field: string): number {
  return headers.reduce((sum, h) => sum + (typeof h[field] === 'number' ? h[field] : 0), 0);
}

/**
 * The server's info text (`Rows matched: 5  Changed: 1  Warnings: 0`, `Records: 3  Duplicates: 0
 * …`) for all the parts: its numbers added up when every part says the same thing.
 */
function infoOf(headers: readonly Record<string, unknown>[]): string {
  const infos = headers.map((h) => (typeof h.info === 'string' ? h.info : ''));
  if (infos.length === 0) return '';
  const shape = infos[0]!.replace(/\d+/g, '#');
  if (infos.some((info) => info.replace(/\d+/g, '#') !== shape)) return infos[0]!;
  const totals = infos.map((info) => (info.match(/\d+/g) ?? []).map(Number)).reduce((a, b) => a.map((n, i) => n + (b[i] ?? 0)));
  let i = 0;
  return shape.replace(/#/g, () => String(totals[i++]));
}

/**
 * Rows an INSERT … RETURNING sent back, in the order of the VALUES rows (TypeORM maps them to
 * its entities by position): part `i` returned, in order, the rows `rowsOf[i]` of the statement.
 * A part that returned fewer rows than it inserted (INSERT IGNORE skipping duplicates) returned
 * some of its rows, and which ones is unknown: when rows of other parts come too, their order
 * among them is unknown, and the statement is refused rather than answered in some order.
 */
function inRowOrder(parts: readonly QueryResult[], rowsOf: readonly (readonly number[])[]): unknown[] {
  const out: unknown[] = [];
  const partial: number[] = [];
  parts.forEach((part, i) => {
    const records = part.records ?? [];
    const rows = rowsOf[i] ?? [];
    if (records.length === rows.length) records.forEach((record, k) => (out[rows[k]!] = record));
    else if (records.length > 0) partial.push(i);
  });
  if (partial.length > 0) {
    if (parts.filter((p) => (p.records ?? []).length > 0).length === 1) return parts.flatMap((r) => r.records ?? []);
    throw new UnsupportedShardingError(
      'An INSERT … RETURNING over several shards skipped some of its rows (INSERT IGNORE, ON CONFLICT DO NOTHING): which of them each shard returned is unknown, so the returned rows cannot be put in the order of the VALUES rows, which TypeORM maps to its entities by position. The write was undone. Insert such rows one shard at a time, or without RETURNING.',
    );
  }
  return out.filter(() => true);
}

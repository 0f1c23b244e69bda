import { QueryResult } from 'typeorm';
import type { Row } from '../merge/index.js';

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
 */
function inRowOrder(parts: readonly QueryResult[], rowsOf: readonly (readonly number[])[]): unknown[] {
  const out: unknown[] = [];
  const extra: unknown[] = [];
  parts.forEach((part, i) => {
    const records = part.records ?? [];
    const rows = rowsOf[i] ?? [];
    // One returned row per inserted row; anything else (INSERT IGNORE skipping rows) keeps shard order.
    if (records.length !== rows.length) extra.push(...records);
    else records.forEach((record, k) => (out[rows[k]!] = record));
  });
  if (extra.length > 0) return parts.flatMap((r) => r.records ?? []);
  return out.filter(() => true);
}

import { QueryResult } from 'typeorm';
import type { Row } from '../merge/index.js';

/** A result of rows, shaped as TypeORM's drivers shape SELECT results. */
export function rowsResult(rows: Row[]): QueryResult {
  const result = new QueryResult();
  result.records = rows;
  result.raw = rows;
  return result;
}

/** The result of several writes: affected rows added up, `raw` shaped like the driver's. */
export function writesResult(parts: readonly QueryResult[], dialect: 'mysql' | 'sqlite'): QueryResult {
  if (parts.length === 1) return parts[0]!;
  const result = new QueryResult();
  const affected = parts.reduce((sum, r) => sum + (r.affected ?? 0), 0);
  result.affected = affected;
  result.records = parts.flatMap((r) => r.records ?? []);
  if (dialect === 'mysql') {
    const first = (parts[0]?.raw ?? {}) as Record<string, unknown>;
    // mysql2's ResultSetHeader: insertId means nothing across shards (no auto-increment on sharded tables).
    result.raw = Array.isArray(first) ? result.records : { ...first, affectedRows: affected, insertId: 0 };
  } else {
    result.raw = parts[0]?.raw;
  }
  return result;
}

import type { ParameterizedSql } from '../parameterize/index.js';
import type { PhysicalStatement } from '../rewrite/physical-statement.js';
import type { InsertRows } from './insert-rows.js';
import type { InsertUnit } from './route-insert.js';

/** The INSERT of one shard: the original text with only that shard's VALUES rows. */
export function rewriteInsert(p: ParameterizedSql, rows: InsertRows, unit: InsertUnit): PhysicalStatement {
  if (unit.rows.length === rows.rows.length) return { shard: unit.shard, sql: p.sql, parameters: p.parameters };
  const first = rows.rows[0]!;
  const last = rows.rows[rows.rows.length - 1]!;
  const keep = new Set(unit.rows);
  const parts = unit.rows.map((r) => p.sql.slice(rows.rows[r]!.start, rows.rows[r]!.end));
  const sql = p.sql.slice(0, first.start) + parts.join(', ') + p.sql.slice(last.end);

  // Parameters inside dropped rows go; those before, between kept rows and after stay in order.
  const dropped = new Set<number>();
  rows.rows.forEach((row, index) => {
    if (keep.has(index)) return;
    for (const s of p.slots) if (s.paramIndex !== undefined && s.start >= row.start && s.end <= row.end) dropped.add(s.paramIndex);
  });
  const parameters = p.parameters.filter((_, i) => !dropped.has(i));
  return { shard: unit.shard, sql, parameters };
}

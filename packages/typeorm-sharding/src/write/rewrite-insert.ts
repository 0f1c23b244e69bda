import type { ParameterizedSql } from '../parameterize/index.js';
import type { PhysicalStatement } from '../rewrite/physical-statement.js';
import type { InsertRows } from './insert-rows.js';
import type { InsertUnit } from './route-insert.js';

/** The INSERT of one shard: the original text with only that shard's VALUES rows. */
export function rewriteInsert(p: ParameterizedSql, rows: InsertRows, unit: InsertUnit): PhysicalStatement {
  if (unit.rows.length === rows.rows.length) return { shard: unit.shard, sql: p.sql, parameters: p.parameters };
  const first = rows.rows[0]!;
  const last = rows.rows[rows.rows.length - 1]!;
  const keep = new Uint8Array(rows.rows.length);
  for (const r of unit.rows) keep[r] = 1;
  const sql = p.sql.slice(0, first.start) + unit.rows.map((r) => p.sql.slice(rows.rows[r]!.start, rows.rows[r]!.end)).join(', ') + p.sql.slice(last.end);

  // Slots and rows are both in text order: one pass keeps the parameters outside dropped rows.
  // (`?`s of IN lists are not slots; an INSERT with an IN list keeps every parameter it has there.)
  if (p.inLists.length > 0) return { shard: unit.shard, sql, parameters: parametersOutsideDroppedRows(p, rows, keep) };
  const parameters: unknown[] = [];
  let row = 0;
  for (const slot of p.slots) {
    if (slot.paramIndex === undefined) continue;
    while (row < rows.rows.length && rows.rows[row]!.end <= slot.start) row++;
    const inRow = row < rows.rows.length && rows.rows[row]!.start <= slot.start;
    if (!inRow || keep[row] === 1) parameters.push(p.parameters[slot.paramIndex]);
  }
  return { shard: unit.shard, sql, parameters };
}

function parametersOutsideDroppedRows(p: ParameterizedSql, rows: InsertRows, keep: Uint8Array): unknown[] {
  const dropped = new Set<number>();
  rows.rows.forEach((row, index) => {
    if (keep[index] === 1) return;
    for (const s of p.slots) if (s.paramIndex !== undefined && s.start >= row.start && s.end <= row.end) dropped.add(s.paramIndex);
  });
  return p.parameters.filter((_, i) => !dropped.has(i));
}

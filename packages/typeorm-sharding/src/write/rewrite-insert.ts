import { firstParameterFrom, parameterStarts, type ParameterizedSql } from '../parameterize/index.js';
import type { SqlToken } from '../rewrite/sql-token.js';
import type { InsertRows } from './insert-rows.js';
import type { InsertUnit } from './route-insert.js';

/**
 * The rewrite of an INSERT for one shard (a token generator, see `rewrite/sql-token.ts`): its
 * VALUES rows become the unit's own, with their parameters; none when the unit keeps them all.
 */
export function insertRowTokens(p: ParameterizedSql, rows: InsertRows, unit: InsertUnit): SqlToken[] {
  if (unit.rows.length === rows.rows.length) return [];
  const first = rows.rows[0]!;
  const last = rows.rows[rows.rows.length - 1]!;
  const starts = parameterStarts(p);
  const values: unknown[] = [];
  const texts: string[] = [];
  for (const r of unit.rows) {
    const row = rows.rows[r]!;
    texts.push(p.sql.slice(row.start, row.end));
    const past = firstParameterFrom(starts, row.end);
    for (let i = firstParameterFrom(starts, row.start); i < past; i++) values.push(p.parameters[i]);
  }
  return [{ start: first.start, end: last.end, text: texts.join(', '), values }];
}

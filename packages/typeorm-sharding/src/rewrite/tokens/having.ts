import type { ParameterizedSql, SqlDialect } from '../../parameterize/index.js';
import type { PrintedSql } from '../../plan/nodes/print-sql.js';
import type { SqlToken } from '../sql-token.js';
import type { TopLevelClauses } from '../top-level-clauses.js';
import { withSlots } from './planner-text.js';

/**
 * The outer HAVING of a statement whose groups span shards is cut (the merge evaluates it on
 * whole groups); the terms that read group keys only (`kept`) stay with the shards. The
 * values inside the cut clause go with it.
 */
export function havingTokens(p: ParameterizedSql, dialect: SqlDialect, kept: PrintedSql | undefined, clauses: TopLevelClauses): SqlToken[] {
  if (clauses.having < 0) return [];
  const values: unknown[] = [];
  const text = kept ? `HAVING ${withSlots(kept.text, p, dialect, values)} ` : '';
  return [{ start: clauses.having, end: clauses.havingEnd, text, values }];
}

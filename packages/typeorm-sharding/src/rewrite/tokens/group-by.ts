import type { ParameterizedSql, SqlDialect } from '../../parameterize/index.js';
import type { PrintedSql } from '../../plan/nodes/print-sql.js';
import type { SqlToken } from '../sql-token.js';
import type { TopLevelClauses } from '../top-level-clauses.js';
import { withSlots } from './planner-text.js';

/**
 * Expressions appended to the shards' GROUP BY (the values of DISTINCT aggregates and
 * GROUP_CONCAT, which the merge combines itself), or a GROUP BY made of them.
 */
export function groupByTokens(p: ParameterizedSql, dialect: SqlDialect, extra: readonly PrintedSql[], clauses: TopLevelClauses): SqlToken[] {
  if (extra.length === 0) return [];
  const values: unknown[] = [];
  const list = extra.map((g) => withSlots(g.text, p, dialect, values)).join(', ');
  return [{ start: clauses.groupByEnd, end: clauses.groupByEnd, text: clauses.groupBy ? `, ${list}` : ` GROUP BY ${list}`, values }];
}

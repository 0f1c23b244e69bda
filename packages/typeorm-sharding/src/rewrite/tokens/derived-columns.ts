import type { ParameterizedSql, SqlDialect } from '../../parameterize/index.js';
import type { DerivedColumn } from '../../plan/plan.js';
import type { SqlToken } from '../sql-token.js';
import type { TopLevelClauses } from '../top-level-clauses.js';
import { aliasText, withSlots } from './planner-text.js';

/**
 * Columns the merge sorts, groups or aggregates by but the statement does not select
 * (`ORDER BY` keys, `AVG` parts, collation weights): appended to the outer select list, before
 * its FROM, under fixed `__shard_…` aliases the merge strips again.
 */
export function derivedColumnTokens(p: ParameterizedSql, dialect: SqlDialect, columns: readonly DerivedColumn[], clauses: TopLevelClauses): SqlToken[] {
  if (columns.length === 0) return [];
  const values: unknown[] = [];
  const text = columns.map((d) => `, ${withSlots(d.expression, p, dialect, values)} AS ${aliasText(d.alias, dialect)}`).join('') + ' ';
  return [{ start: clauses.from, end: clauses.from, text, values }];
}

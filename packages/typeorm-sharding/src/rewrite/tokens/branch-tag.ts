import type { ParameterizedSql, SqlDialect } from '../../parameterize/index.js';
import type { SqlToken } from '../sql-token.js';
import { topLevelClauses } from '../top-level-clauses.js';
import { aliasText } from './planner-text.js';

/** The column a capped shallow page's statements tag their rows with (see `merge/capped-inputs.ts`). */
export const BRANCH_TAG = '__shard_branch';

/**
 * `, <shard> AS __shard_branch` appended to the outer select list, before its FROM: the rows of a
 * server's UNION ALL then say which shard's branch sent them, after the server merged them.
 */
export function branchTagToken(p: ParameterizedSql, dialect: SqlDialect, alias: string, shard: number): SqlToken {
  const at = topLevelClauses(p, dialect).from;
  return { start: at, end: at, text: `, ${shard} AS ${aliasText(alias, dialect)} ` };
}

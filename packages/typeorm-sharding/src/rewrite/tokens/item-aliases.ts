import { ShardingInternalError } from '../../errors/index.js';
import type { ParameterizedSql, SqlDialect } from '../../parameterize/index.js';
import { selectItemSpans } from '../../plan/select/select-item-names.js';
import type { SqlToken } from '../sql-token.js';
import { aliasText } from './planner-text.js';

/** Unaliased select items the merge needs by name: each gets `AS alias` (the merge renames it back). */
export function itemAliasTokens(p: ParameterizedSql, dialect: SqlDialect, aliases: readonly { readonly index: number; readonly alias: string }[]): SqlToken[] {
  if (aliases.length === 0) return [];
  const spans = selectItemSpans(p, dialect);
  return aliases.map(({ index, alias }) => {
    const span = spans[index];
    if (!span) throw new ShardingInternalError(`select item ${index + 1} not found in the statement text`, { stage: 'rewrite', sql: p.sql });
    return { start: span.end, end: span.end, text: ` AS ${aliasText(alias, dialect)}` };
  });
}

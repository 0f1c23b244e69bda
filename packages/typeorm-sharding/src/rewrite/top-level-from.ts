import { ShardingInternalError } from '../errors/index.js';
import { lex, TokenBuffer, TokenKind } from '../parameterize/lexer.js';
import type { ParameterizedSql, SqlDialect } from '../parameterize/index.js';

const tokens = new TokenBuffer();

/**
 * Offset of the outermost SELECT's `FROM` keyword: derived columns are spliced in just before
 * it. Only reached when a scattered query needs a derived column, so a second lex is cheap.
 */
export function topLevelFromOffset(p: ParameterizedSql, dialect: SqlDialect): number {
  const count = lex(p.sql, dialect, tokens);
  let depth = 0;
  for (let i = 0; i < count; i++) {
    const kind = tokens.kinds[i];
    if (kind === TokenKind.Open) depth++;
    else if (kind === TokenKind.Close) depth--;
    else if (depth === 0 && kind === TokenKind.Word && tokens.ends[i]! - tokens.starts[i]! === 4 && p.sql.slice(tokens.starts[i], tokens.ends[i]).toUpperCase() === 'FROM') {
      return tokens.starts[i]!;
    }
  }
  throw new ShardingInternalError('no top-level FROM in a SELECT that needs derived columns', { stage: 'rewrite', sql: p.sql });
}

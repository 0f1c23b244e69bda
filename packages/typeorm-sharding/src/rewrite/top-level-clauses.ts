import { ShardingInternalError } from '../errors/index.js';
import { lex, TokenBuffer, TokenKind } from '../parameterize/index.js';
import type { ParameterizedSql, SqlDialect } from '../parameterize/index.js';

/** Offsets of the outermost SELECT's clause keywords (-1 when absent). */
export interface TopLevelClauses {
  readonly from: number;
  readonly having: number;
  /** Where the HAVING clause ends: the next top-level ORDER / LIMIT / FOR / end of text. */
  readonly havingEnd: number;
}

const tokens = new TokenBuffer();
const WATCHED = new Set(['FROM', 'HAVING', 'ORDER', 'LIMIT', 'FOR', 'WINDOW']);

/**
 * Finds the outermost SELECT's FROM and HAVING by lexing the statement once more. Only a
 * scattered query that needs derived columns or a HAVING moved to the merge gets here.
 */
export function topLevelClauses(p: ParameterizedSql, dialect: SqlDialect): TopLevelClauses {
  const count = lex(p.sql, dialect, tokens);
  let depth = 0;
  let from = -1;
  let having = -1;
  let havingEnd = p.sql.length;
  for (let i = 0; i < count; i++) {
    const kind = tokens.kinds[i];
    if (kind === TokenKind.Open) depth++;
    else if (kind === TokenKind.Close) depth--;
    else if (depth === 0 && kind === TokenKind.Word) {
      const word = p.sql.slice(tokens.starts[i], tokens.ends[i]).toUpperCase();
      if (!WATCHED.has(word)) continue;
      if (word === 'FROM' && from < 0) from = tokens.starts[i]!;
      else if (word === 'HAVING') having = tokens.starts[i]!;
      else if (having >= 0 && havingEnd === p.sql.length && word !== 'FROM') havingEnd = tokens.starts[i]!;
    } else if (depth === 0 && kind === TokenKind.Semicolon && having >= 0 && havingEnd === p.sql.length) {
      havingEnd = tokens.starts[i]!;
    }
  }
  if (from < 0) throw new ShardingInternalError('no top-level FROM in a SELECT that needs derived columns', { stage: 'rewrite', sql: p.sql });
  return { from, having, havingEnd };
}

/**
 * The lexer's tokens of one statement as small objects, for the checks that run once per
 * statement shape (plan-cache miss) and need to look around: which tables a statement names,
 * what a DDL statement changes. Quoting never matters here: `orders`, `` `orders` `` and
 * `"orders"` (SQLite) are the same identifier.
 */
import { lex, TokenBuffer, TokenKind, type SqlDialect, type TokenKindValue } from '../../parameterize/index.js';

/** One token: its kind and its text (quoted identifiers without their quotes). */
export interface StatementToken {
  readonly kind: TokenKindValue;
  readonly text: string;
  /** Parenthesis depth at the token (0 = top level of the statement). */
  readonly depth: number;
}

const buffer = new TokenBuffer();

/** Tokens of `sql` as the dialect reads them (MySQL: `"…"` is a string; SQLite: an identifier). */
export function statementTokens(sql: string, dialect: SqlDialect): StatementToken[] {
  const count = lex(sql, dialect, buffer);
  const out: StatementToken[] = [];
  let depth = 0;
  for (let i = 0; i < count; i++) {
    const kind = buffer.kinds[i] as TokenKindValue;
    const raw = sql.slice(buffer.starts[i], buffer.ends[i]);
    if (kind === TokenKind.Close) depth = Math.max(0, depth - 1);
    out.push({ kind, text: kind === TokenKind.QuotedIdent ? unquote(raw) : raw, depth });
    if (kind === TokenKind.Open) depth++;
  }
  return out;
}

/** True for a token that can name a table: an unquoted word or a quoted identifier. */
export function isIdentifier(token: StatementToken | undefined): boolean {
  return token !== undefined && (token.kind === TokenKind.Word || token.kind === TokenKind.QuotedIdent);
}

/** True when the token is the unquoted keyword `upper` (given in upper case). */
export function isKeyword(token: StatementToken | undefined, upper: string): boolean {
  return token !== undefined && token.kind === TokenKind.Word && token.text.length === upper.length && token.text.toUpperCase() === upper;
}

function unquote(text: string): string {
  const quote = text[0]!;
  return text.slice(1, -1).split(quote + quote).join(quote);
}

/**
 * Where in the user's text the SQL parser stopped: the parser reads the parser text
 * (`ParameterizedSql.parserSql`: identifiers in backticks, values as `:p<n>`, IN lists as
 * `(:l<k>)`, comments dropped), so its offset is carried back token by token to the statement as
 * the user wrote it, in the user's dialect and with the user's values.
 */
import { lex, lexedOf, TokenBuffer, TokenKind, type ParameterizedSql, type SqlDialect } from '../../parameterize/index.js';

const buffer = new TokenBuffer();

/** Offset in `p.sql` of the token the parser stopped at (`parserOffset` in `p.parserSql`). */
export function userOffsetOf(p: ParameterizedSql, dialect: SqlDialect, parserOffset: number): number {
  const parserUnits = parserUnitStarts(p.parserSql);
  const userUnits = userUnitStarts(p, dialect);
  let unit = parserUnits.findIndex((start) => start >= parserOffset);
  if (unit < 0) unit = parserUnits.length;
  return unit < userUnits.length ? userUnits[unit]! : p.sql.length;
}

/** Starts of the parser text's units: a token, with `:p<n>`, `(:l<k>)` and `DEFAULT()` one unit each. */
function parserUnitStarts(text: string): number[] {
  const count = lex(text, 'mysql', buffer);
  const at = (i: number) => text.slice(buffer.starts[i], buffer.ends[i]);
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    out.push(buffer.starts[i]!);
    if (at(i) === ':' && i + 1 < count) i += 1;
    else if (buffer.kinds[i] === TokenKind.Open && at(i + 1) === ':' && /^l\d+$/.test(at(i + 2)) && at(i + 3) === ')') i += 3;
    else if (/^default$/i.test(at(i)) && at(i + 1) === '(' && at(i + 2) === ')') i += 2;
  }
  return out;
}

/** Starts of the user text's units: a token, with each IN list's parentheses and items one unit. */
function userUnitStarts(p: ParameterizedSql, dialect: SqlDialect): number[] {
  const lexed = lexedOf(p, dialect);
  const lists = new Map(p.inLists.map((l) => [l.open, l.close]));
  const out: number[] = [];
  for (let i = 0; i < lexed.count; i++) {
    const start = lexed.starts[i]!;
    out.push(start);
    const close = lists.get(start);
    if (close !== undefined) while (i + 1 < lexed.count && lexed.starts[i + 1]! <= close) i++;
  }
  return out;
}

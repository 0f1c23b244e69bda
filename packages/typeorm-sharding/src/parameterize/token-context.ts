/**
 * Questions about a token's neighbours that decide whether a literal is a value.
 */
import { TokenKind, type TokenBuffer } from './lexer.js';
import { TYPE_NAMES, isWord } from './keywords.js';

/** Token `i` exists and is the unquoted word `lower` (any case). */
export function wordAt(sql: string, t: TokenBuffer, i: number, lower: string): boolean {
  return i >= 0 && i < t.count && t.kinds[i] === TokenKind.Word && isWord(sql, t.starts[i]!, t.ends[i]!, lower);
}

/** `IS NULL` / `IS NOT NULL`: the NULL at `i` is part of the operator, not a value. */
export function nullIsOperator(sql: string, t: TokenBuffer, i: number): boolean {
  return wordAt(sql, t, i - 1, 'is') || (wordAt(sql, t, i - 1, 'not') && wordAt(sql, t, i - 2, 'is'));
}

/** `COUNT(1)` (TypeORM's count query) counts rows: its number is kept as written for the planner. */
export function isCountArgument(sql: string, t: TokenBuffer, i: number): boolean {
  return (
    i + 1 < t.count &&
    t.kinds[i + 1] === TokenKind.Close &&
    i >= 1 &&
    t.kinds[i - 1] === TokenKind.Open &&
    wordAt(sql, t, i - 2, 'count')
  );
}

/**
 * Within an `ORDER BY` / `GROUP BY` list, a bare integer item (`ORDER BY 2`) names a
 * column by position; it is no value.
 */
export function isColumnPosition(sql: string, t: TokenBuffer, i: number): boolean {
  const prev = i > 0 ? t.kinds[i - 1] : 0;
  if (prev !== TokenKind.Comma && !wordAt(sql, t, i - 1, 'by')) return false;
  const next = i + 1 < t.count ? t.kinds[i + 1] : TokenKind.Semicolon;
  if (next !== TokenKind.Comma && next !== TokenKind.Close && next !== TokenKind.Semicolon && next !== TokenKind.Word) {
    return false;
  }
  for (let k = t.starts[i]!; k < t.ends[i]!; k++) {
    const c = sql.charCodeAt(k);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** Token `i` is a type name whose parenthesised numbers are sizes (`DECIMAL` in `CAST(x AS DECIMAL(10, 2))`). */
export function isTypeName(sql: string, t: TokenBuffer, i: number): boolean {
  if (i < 0 || t.kinds[i] !== TokenKind.Word) return false;
  const n = t.ends[i]! - t.starts[i]!;
  return n >= 3 && n <= 9 && TYPE_NAMES.has(sql.slice(t.starts[i], t.ends[i]).toUpperCase());
}

const LIST_ENDERS = ['limit', 'offset', 'having', 'window', 'union', 'except', 'intersect', 'for', 'lock', 'into', 'fetch', 'returning', 'order'];

/** A word that ends an `ORDER BY` / `GROUP BY` list at its own nesting depth. */
export function endsByList(sql: string, start: number, end: number): boolean {
  for (const word of LIST_ENDERS) if (isWord(sql, start, end, word)) return true;
  return false;
}

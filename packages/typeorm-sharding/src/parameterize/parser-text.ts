/**
 * Spelling of code tokens in `parserSql`, the text handed to node-sql-parser's MySQL
 * grammar whatever the source dialect. Runs only on a plan-cache miss.
 */
import type { SqlDialect } from './parameterized-sql.js';
import { TokenKind, type TokenBuffer } from './lexer.js';
import { SQL_KEYWORDS, isWord } from './keywords.js';

function backtick(name: string): string {
  return '`' + name.replaceAll('`', '``') + '`';
}

/** A quoted identifier in backticks: SQLite's `"a""b"` becomes `` `a"b` ``. */
export function parserQuotedIdent(text: string): string {
  if (text.charCodeAt(0) === 96) return text;
  return backtick(text.slice(1, -1).replaceAll('""', '"'));
}

/**
 * An unquoted word: keywords and function names stay bare, identifiers (including the
 * table of `INSERT INTO t (…)`) get backticks.
 * `DEFAULT` used as a value becomes `DEFAULT()`, the only spelling node-sql-parser
 * accepts in `VALUES (…)` and `SET x = …` (MySQL's `DEFAULT(col)` always has an argument,
 * so the empty call cannot be confused with real SQL).
 */
/** Functions node-sql-parser's grammar does not know, by a synonym it knows (MySQL: STD is STDDEV_POP, VARIANCE is VAR_POP). */
const FUNCTION_SYNONYMS: Readonly<Record<string, string>> = { STD: 'STDDEV_POP', VARIANCE: 'VAR_POP' };

export function parserWord(sql: string, t: TokenBuffer, i: number): string {
  const word = sql.slice(t.starts[i], t.ends[i]);
  const next = i + 1 < t.count ? t.kinds[i + 1] : 0;
  const prev = i > 0 ? t.kinds[i - 1] : 0;
  const afterInto = prev === TokenKind.Word && isWord(sql, t.starts[i - 1]!, t.ends[i - 1]!, 'into');
  if (next === TokenKind.Open && !afterInto) return FUNCTION_SYNONYMS[word.toUpperCase()] ?? word;
  if (afterInto || prev === TokenKind.Dot || next === TokenKind.Dot) return backtick(word);
  const upper = word.toUpperCase();
  if (upper === 'DEFAULT' && (prev === TokenKind.Open || prev === TokenKind.Comma || isEquals(sql, t, i - 1))) {
    return 'DEFAULT()';
  }
  return SQL_KEYWORDS.has(upper) ? word : backtick(word);
}

function isEquals(sql: string, t: TokenBuffer, i: number): boolean {
  return i >= 0 && t.kinds[i] === TokenKind.Operator && t.ends[i]! - t.starts[i]! === 1 && sql.charCodeAt(t.starts[i]!) === 61;
}

/** A string literal kept as code: SQLite has no backslash escapes, MySQL does. */
export function parserString(text: string, dialect: SqlDialect): string {
  return dialect === 'sqlite' ? text.replaceAll('\\', '\\\\') : text;
}

/** An operator: SQLite's `==` is MySQL's `=`. */
export function parserOperator(text: string, dialect: SqlDialect): string {
  return dialect === 'sqlite' && text === '==' ? '=' : text;
}

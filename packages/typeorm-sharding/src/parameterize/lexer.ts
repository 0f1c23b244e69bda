/**
 * A hand-written, single-pass SQL lexer over char codes.
 *
 * Why not the parser: node-sql-parser costs ~0.4–1 ms per SELECT while a whole TypeORM
 * `find` costs ~0.1 ms. This lexer yields the plan-cache key in microseconds, so the
 * parser runs once per query shape instead of once per query. Tokens go into reusable
 * typed arrays (no object per token) because this runs on every statement.
 */
import type { SqlDialect } from './parameterized-sql.js';
import { EXPRESSION_START_WORDS } from './keywords.js';

/** Kinds of tokens. Whitespace and comments produce no token. */
export const TokenKind = {
  /** Unquoted word: keyword, function name or bare identifier. */
  Word: 1,
  /** Quoted identifier: `` `x` `` (both dialects) or `"x"` (SQLite). */
  QuotedIdent: 2,
  /** String literal, `'…'` (both), `"…"` (MySQL), with an optional `N` prefix. */
  String: 3,
  /** Numeric literal, including a leading `-` when it is a sign rather than a minus. */
  Number: 4,
  /** A `?` placeholder. */
  Param: 5,
  /** Code passed through untouched: hex/bit literals, `@variables`, unterminated quotes. */
  Opaque: 6,
  Open: 7,
  Close: 8,
  Comma: 9,
  Dot: 10,
  Semicolon: 11,
  /** Any other operator or symbol (`=`, `<=`, `*`, `||`, …). */
  Operator: 12,
} as const;

/** One of the {@link TokenKind} values. */
export type TokenKindValue = (typeof TokenKind)[keyof typeof TokenKind];

/**
 * Token storage as parallel typed arrays: token `i` covers `sql.slice(starts[i], ends[i])`.
 * One buffer can be reused for every statement; it grows as needed.
 */
export class TokenBuffer {
  kinds: Uint8Array;
  starts: Int32Array;
  ends: Int32Array;
  /** Number of valid tokens after the last {@link lex}. */
  count = 0;

  constructor(capacity = 256) {
    this.kinds = new Uint8Array(capacity);
    this.starts = new Int32Array(capacity);
    this.ends = new Int32Array(capacity);
  }

  /** Appends a token, growing the arrays when full. */
  push(kind: TokenKindValue, start: number, end: number): void {
    const i = this.count;
    if (i === this.kinds.length) this.grow();
    this.kinds[i] = kind;
    this.starts[i] = start;
    this.ends[i] = end;
    this.count = i + 1;
  }

  private grow(): void {
    const capacity = this.kinds.length * 2;
    const kinds = new Uint8Array(capacity);
    const starts = new Int32Array(capacity);
    const ends = new Int32Array(capacity);
    kinds.set(this.kinds);
    starts.set(this.starts);
    ends.set(this.ends);
    this.kinds = kinds;
    this.starts = starts;
    this.ends = ends;
  }
}

const QUOTE = 39; // '
const DQUOTE = 34; // "
const BACKTICK = 96;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isWordChar(c: number): boolean {
  return (
    (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36 || c >= 128
  );
}

function isHexDigit(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}

/**
 * Returns the offset just past a quoted run opened at `start` by `quote`, or -1 when it
 * is never closed. A doubled quote stays inside; a backslash escapes the next
 * character only when `backslash` is set (MySQL strings).
 */
function skipQuoted(sql: string, start: number, quote: string, backslash: boolean): number {
  const n = sql.length;
  const q = quote.charCodeAt(0);
  let i = start + 1;
  if (backslash) {
    while (i < n) {
      const c = sql.charCodeAt(i);
      if (c === q) {
        if (i + 1 < n && sql.charCodeAt(i + 1) === q) {
          i += 2;
          continue;
        }
        return i + 1;
      }
      i += c === 92 ? 2 : 1;
    }
    return -1;
  }
  // identifiers and SQLite strings: indexOf is much faster than a char loop
  for (;;) {
    const at = sql.indexOf(quote, i);
    if (at < 0) return -1;
    if (at + 1 < n && sql.charCodeAt(at + 1) === q) {
      i = at + 2;
      continue;
    }
    return at + 1;
  }
}

/** Offset past a numeric literal starting at `i` (a digit, or `.` before a digit). */
function skipNumber(sql: string, i: number): number {
  const n = sql.length;
  while (i < n && isDigit(sql.charCodeAt(i))) i++;
  if (i < n && sql.charCodeAt(i) === 46) {
    i++;
    while (i < n && isDigit(sql.charCodeAt(i))) i++;
  }
  if (i < n && (sql.charCodeAt(i) | 0x20) === 101) {
    let j = i + 1;
    const sign = j < n ? sql.charCodeAt(j) : 0;
    if (sign === 43 || sign === 45) j++;
    if (j < n && isDigit(sql.charCodeAt(j))) {
      i = j;
      while (i < n && isDigit(sql.charCodeAt(i))) i++;
    }
  }
  return i;
}

/** True when a value may start here, so a `-` before digits is a sign (`= -5`, `(-5`, `IN -5`) rather than a minus (`a-5`). */
function valuePosition(sql: string, buf: TokenBuffer): boolean {
  const last = buf.count - 1;
  if (last < 0) return true;
  switch (buf.kinds[last]) {
    case TokenKind.Open:
    case TokenKind.Comma:
    case TokenKind.Operator:
    case TokenKind.Semicolon:
      return true;
    case TokenKind.Word:
      return EXPRESSION_START_WORDS.has(sql.slice(buf.starts[last], buf.ends[last]).toUpperCase());
    default:
      return false;
  }
}

/** Length of the multi-character operator at `i`, or 1. */
function operatorLength(sql: string, i: number, c: number): number {
  const d = i + 1 < sql.length ? sql.charCodeAt(i + 1) : 0;
  switch (c) {
    case 60: // <
      if (d === 61) return i + 2 < sql.length && sql.charCodeAt(i + 2) === 62 ? 3 : 2; // <= <=>
      return d === 62 || d === 60 ? 2 : 1; // <> <<
    case 62: // >
      return d === 61 || d === 62 ? 2 : 1; // >= >>
    case 33: // !
    case 61: // =
    case 58: // :
      return d === 61 ? 2 : 1; // != == :=
    case 124: // |
      return d === 124 ? 2 : 1;
    case 38: // &
      return d === 38 ? 2 : 1;
    case 45: // - (-> and ->>)
      if (d !== 62) return 1;
      return i + 2 < sql.length && sql.charCodeAt(i + 2) === 62 ? 3 : 2;
    default:
      return 1;
  }
}

/**
 * Splits `sql` into tokens, overwriting `buf`. Comments (`-- `, `#` in MySQL, `/* … *\/`)
 * and whitespace produce no tokens, so nothing inside them is ever mistaken for code.
 * Returns the token count.
 */
export function lex(sql: string, dialect: SqlDialect, buf: TokenBuffer): number {
  const mysql = dialect === 'mysql';
  const n = sql.length;
  buf.count = 0;
  let i = 0;
  while (i < n) {
    const c = sql.charCodeAt(i);
    if (c <= 32) {
      i++;
      continue;
    }
    const start = i;
    switch (c) {
      case 45: {
        // -
        const d = i + 1 < n ? sql.charCodeAt(i + 1) : 0;
        if (d === 45 && (!mysql || i + 2 >= n || sql.charCodeAt(i + 2) <= 32)) {
          i = skipLine(sql, i + 2);
          continue;
        }
        // a sign may be followed by blanks: `= - 5` is the literal -5, like `= -5`
        let k = i + 1;
        while (k < n && sql.charCodeAt(k) <= 32) k++;
        const digit = k < n ? sql.charCodeAt(k) : 0;
        if (
          (isDigit(digit) || (digit === 46 && k + 1 < n && isDigit(sql.charCodeAt(k + 1)))) &&
          valuePosition(sql, buf)
        ) {
          i = lexNumberOrWord(sql, k, start, buf);
          continue;
        }
        break;
      }
      case 35: // #
        if (mysql) {
          i = skipLine(sql, i + 1);
          continue;
        }
        break;
      case 47: // /
        if (i + 1 < n && sql.charCodeAt(i + 1) === 42) {
          const close = sql.indexOf('*/', i + 2);
          i = close < 0 ? n : close + 2;
          continue;
        }
        break;
      case QUOTE:
        i = pushQuoted(sql, i, start, "'", mysql, TokenKind.String, buf);
        continue;
      case DQUOTE:
        i = mysql
          ? pushQuoted(sql, i, start, '"', true, TokenKind.String, buf)
          : pushQuoted(sql, i, start, '"', false, TokenKind.QuotedIdent, buf);
        continue;
      case BACKTICK:
        i = pushQuoted(sql, i, start, '`', false, TokenKind.QuotedIdent, buf);
        continue;
      case 63: // ?
        buf.push(TokenKind.Param, i, i + 1);
        i++;
        continue;
      case 40:
        buf.push(TokenKind.Open, i, i + 1);
        i++;
        continue;
      case 41:
        buf.push(TokenKind.Close, i, i + 1);
        i++;
        continue;
      case 44:
        buf.push(TokenKind.Comma, i, i + 1);
        i++;
        continue;
      case 59:
        buf.push(TokenKind.Semicolon, i, i + 1);
        i++;
        continue;
      case 46: // .
        if (i + 1 < n && isDigit(sql.charCodeAt(i + 1)) && valuePosition(sql, buf)) {
          i = lexNumberOrWord(sql, i, start, buf);
          continue;
        }
        buf.push(TokenKind.Dot, i, i + 1);
        i++;
        continue;
      case 64: {
        // @var, @@var
        let j = i + 1;
        if (j < n && sql.charCodeAt(j) === 64) j++;
        while (j < n && (isWordChar(sql.charCodeAt(j)) || sql.charCodeAt(j) === 46)) j++;
        buf.push(TokenKind.Opaque, i, j);
        i = j;
        continue;
      }
    }
    if (isDigit(c)) {
      if (c === 48 && i + 1 < n) {
        const x = sql.charCodeAt(i + 1) | 0x20;
        if (x === 120 || x === 98) {
          // 0x… / 0b…: opaque code, not a value slot
          let j = i + 2;
          while (j < n && isHexDigit(sql.charCodeAt(j))) j++;
          if (j > i + 2 && (j >= n || !isWordChar(sql.charCodeAt(j)))) {
            buf.push(TokenKind.Opaque, i, j);
            i = j;
            continue;
          }
        }
      }
      i = lexNumberOrWord(sql, i, start, buf);
      continue;
    }
    if (isWordChar(c)) {
      const next = i + 1 < n ? sql.charCodeAt(i + 1) : 0;
      if (next === QUOTE) {
        const p = c | 0x20;
        if (p === 120 || p === 98) {
          // X'…' / B'…'
          i = pushQuoted(sql, i + 1, start, "'", false, TokenKind.Opaque, buf);
          continue;
        }
        if (p === 110) {
          // N'…'
          i = pushQuoted(sql, i + 1, start, "'", mysql, TokenKind.String, buf);
          continue;
        }
      }
      let j = i + 1;
      while (j < n && isWordChar(sql.charCodeAt(j))) j++;
      buf.push(TokenKind.Word, i, j);
      i = j;
      continue;
    }
    const len = operatorLength(sql, i, c);
    buf.push(TokenKind.Operator, i, i + len);
    i += len;
  }
  return buf.count;
}

function skipLine(sql: string, i: number): number {
  const nl = sql.indexOf('\n', i);
  return nl < 0 ? sql.length : nl + 1;
}

/**
 * Pushes the quoted token whose quote is at `quoteAt` (the token itself starts at
 * `start`, earlier for `N'…'`). An unterminated quote becomes opaque code to the end.
 */
function pushQuoted(
  sql: string,
  quoteAt: number,
  start: number,
  quote: string,
  backslash: boolean,
  kind: TokenKindValue,
  buf: TokenBuffer,
): number {
  const end = skipQuoted(sql, quoteAt, quote, backslash);
  if (end < 0) {
    buf.push(TokenKind.Opaque, start, sql.length);
    return sql.length;
  }
  buf.push(kind, start, end);
  return end;
}

/**
 * Pushes the number whose digits start at `digits` (the token starts at `start`, one
 * earlier for a sign). MySQL lets identifiers begin with digits (`1st`), so a number
 * running straight into word characters is a word.
 */
function lexNumberOrWord(sql: string, digits: number, start: number, buf: TokenBuffer): number {
  const n = sql.length;
  let end = skipNumber(sql, digits);
  if (end < n && isWordChar(sql.charCodeAt(end)) && start === digits) {
    while (end < n && isWordChar(sql.charCodeAt(end))) end++;
    buf.push(TokenKind.Word, start, end);
    return end;
  }
  buf.push(TokenKind.Number, start, end);
  return end;
}

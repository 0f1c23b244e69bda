import type { SqlDialect } from './parameterized-sql.js';

const BACKSLASH = 92;

function mysqlEscape(c: number): string {
  switch (c) {
    case 48: // \0
      return '\0';
    case 98: // \b
      return '\b';
    case 110: // \n
      return '\n';
    case 114: // \r
      return '\r';
    case 116: // \t
      return '\t';
    case 90: // \Z
      return '\x1a';
    case 37: // \% and \_ keep their backslash (they are LIKE escapes)
      return '\\%';
    case 95:
      return '\\_';
    default:
      return String.fromCharCode(c);
  }
}

/**
 * The value of the string literal token `sql[start, end)` (`'…'`, MySQL `"…"`, or
 * `N'…'`): doubled quotes undone and, in MySQL only, backslash escapes decoded.
 */
export function decodeString(sql: string, start: number, end: number, dialect: SqlDialect): string {
  let open = start;
  const first = sql.charCodeAt(open);
  if (first !== 39 && first !== 34) open++; // N prefix
  const quote = sql.charCodeAt(open);
  const from = open + 1;
  const to = end - 1;
  const backslash = dialect === 'mysql';
  let out = '';
  let run = from;
  for (let i = from; i < to; i++) {
    const c = sql.charCodeAt(i);
    if (c === quote) {
      // the lexer only lets a quote through here when it is doubled
      out += sql.slice(run, i + 1);
      i++;
      run = i + 1;
    } else if (backslash && c === BACKSLASH) {
      out += sql.slice(run, i) + mysqlEscape(sql.charCodeAt(i + 1));
      i++;
      run = i + 1;
    }
  }
  return run === from ? sql.slice(from, to) : out + sql.slice(run, to);
}

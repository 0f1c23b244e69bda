import { lexedOf, memoOf, MemoKey, TokenKind, type ParameterizedSql, type SqlDialect } from '../../parameterize/index.js';

const SPANS: Record<SqlDialect, MemoKey<readonly ItemSpan[]>> = { mysql: new MemoKey('select item spans mysql'), sqlite: new MemoKey('select item spans sqlite') };
const MODIFIERS = /^(DISTINCT|ALL|DISTINCTROW|HIGH_PRIORITY|STRAIGHT_JOIN|SQL_SMALL_RESULT|SQL_BIG_RESULT|SQL_BUFFER_RESULT|SQL_CACHE|SQL_NO_CACHE|SQL_CALC_FOUND_ROWS)$/i;
const LIST_END = /^(FROM|WHERE|GROUP|HAVING|ORDER|LIMIT|INTO|UNION|EXCEPT|INTERSECT|FOR|LOCK|WINDOW)$/i;

/** Where one item of a select list is in the statement text (alias included). */
export interface ItemSpan {
  readonly start: number;
  readonly end: number;
}

/**
 * The spans of the items of the outermost select list, from the statement's tokens (once per
 * text): the text between the SELECT keyword (and its modifiers) and the first top-level
 * clause keyword, cut at top-level commas.
 */
export function selectItemSpans(p: Pick<ParameterizedSql, 'sql' | 'memo'>, dialect: SqlDialect): readonly ItemSpan[] {
  return memoOf(p).get(SPANS[dialect], () => findSpans(p, dialect));
}

function findSpans(p: Pick<ParameterizedSql, 'sql' | 'memo'>, dialect: SqlDialect): ItemSpan[] {
  const tokens = lexedOf(p, dialect);
  const count = tokens.count;
  const word = (i: number) => (tokens.kinds[i] === TokenKind.Word ? p.sql.slice(tokens.starts[i], tokens.ends[i]) : '');
  let i = 0;
  while (i < count && tokens.kinds[i] !== TokenKind.Word) i++;
  // `WITH c AS (…), d AS (…) SELECT …`: the outermost select list is the one after the CTEs.
  if (/^WITH$/i.test(word(i))) {
    let level = 0;
    for (i++; i < count && !(level === 0 && /^SELECT$/i.test(word(i))); i++) {
      if (tokens.kinds[i] === TokenKind.Open) level++;
      else if (tokens.kinds[i] === TokenKind.Close) level--;
    }
  }
  if (!/^SELECT$/i.test(word(i))) return [];
  i++;
  while (i < count && MODIFIERS.test(word(i))) i++;
  const spans: ItemSpan[] = [];
  let depth = 0;
  let start = i < count ? tokens.starts[i]! : p.sql.length;
  let end = start;
  for (; i < count; i++) {
    const kind = tokens.kinds[i];
    if (depth === 0 && (kind === TokenKind.Comma || kind === TokenKind.Semicolon || LIST_END.test(word(i)))) {
      spans.push({ start, end });
      if (kind !== TokenKind.Comma) return spans;
      start = i + 1 < count ? tokens.starts[i + 1]! : p.sql.length;
      continue;
    }
    if (kind === TokenKind.Open) depth++;
    else if (kind === TokenKind.Close) depth--;
    end = tokens.ends[i]!;
  }
  spans.push({ start, end });
  return spans;
}

/**
 * The name the server gives an unaliased expression item: its text as written (MySQL
 * writes a string literal's value). Undefined on MySQL when the text holds a `?`: mysql2
 * writes the value into the statement, and the name with it.
 */
export function expressionItemName(text: string, dialect: SqlDialect): string | undefined {
  if (dialect === 'mysql') {
    if (text.includes('?')) return undefined;
    const literal = /^'((?:[^'\\]|''|\\.)*)'$/.exec(text);
    if (literal) return literal[1]!.replace(/''/g, "'").replace(/\\(.)/g, '$1');
  }
  return text;
}

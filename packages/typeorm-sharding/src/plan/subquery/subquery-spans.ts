/**
 * Where the parenthesised SELECTs of a statement are in its original text. The parser tree
 * has no positions, and physical SQL is always spliced from the original text, so a
 * subquery the planner chose (by its place among the parenthesised SELECTs, in text order)
 * is found here again for every statement of the shape.
 */
import { lex, memoOf, MemoKey, TokenBuffer, TokenKind, type ParameterizedSql, type SqlDialect } from '../../parameterize/index.js';

/** One `( SELECT … )` of the text. */
export interface SubquerySpan {
  /** Offset of `(`. */
  readonly open: number;
  /** Offset of the matching `)`. */
  readonly close: number;
  /** Index of the first `?` inside, counted over the whole statement. */
  readonly firstParameter: number;
  /** Index one past the last `?` inside. */
  readonly endParameter: number;
  /** The token before `(` is the word IN (`x IN (SELECT …)`, `x NOT IN (SELECT …)`). */
  readonly afterIn: boolean;
  /** It is a whole item of a parenthesised list (`VALUES (1, (SELECT …))`): between `(` or `,` and `,` or `)`. */
  readonly wholeItem: boolean;
  /** It sits in an ORDER BY or GROUP BY list, where a bare integer would be read as a column position. */
  readonly inByList: boolean;
}

/** Words that end an ORDER BY / GROUP BY list at their depth. */
const CLAUSE_WORDS = new Set(['SELECT', 'FROM', 'WHERE', 'HAVING', 'LIMIT', 'OFFSET', 'UNION', 'EXCEPT', 'INTERSECT', 'WINDOW', 'FOR', 'INTO', 'ON', 'SET', 'VALUES', 'RETURNING', 'LOCK']);

const tokens = new TokenBuffer();

function isWordAt(sql: string, i: number, upper: string): boolean {
  return i >= 0 && i < tokens.count && tokens.kinds[i] === TokenKind.Word && sql.slice(tokens.starts[i], tokens.ends[i]).toUpperCase() === upper;
}

const SPANS: Record<SqlDialect, MemoKey<readonly SubquerySpan[]>> = { mysql: new MemoKey('subquery spans mysql'), sqlite: new MemoKey('subquery spans sqlite') };

/** `subquerySpans` of a statement's text, found once per text (its memo). */
export function subquerySpansOf(p: Pick<ParameterizedSql, 'sql' | 'memo'>, dialect: SqlDialect): readonly SubquerySpan[] {
  return memoOf(p).get(SPANS[dialect], () => Object.freeze(subquerySpans(p.sql, dialect)));
}

/**
 * Every `(` directly followed by the word SELECT, with its matching `)`, in the order of the
 * `(` (so an outer subquery comes before the ones inside it). Spans never closed are left out.
 */
export function subquerySpans(sql: string, dialect: SqlDialect): SubquerySpan[] {
  const count = lex(sql, dialect, tokens);
  const spans: (SubquerySpan | undefined)[] = [];
  // For each open parenthesis: the index of its span in `spans`, or -1 when it opens no SELECT.
  const stack: { span: number; start: number; firstParameter: number; afterIn: boolean; itemStart: boolean; inByList: boolean }[] = [];
  // Per parenthesis depth: inside an ORDER BY / GROUP BY list of that depth.
  const byList: boolean[] = [false];
  let parameters = 0;
  for (let i = 0; i < count; i++) {
    const kind = tokens.kinds[i];
    if (kind === TokenKind.Param) parameters++;
    else if (kind === TokenKind.Word) {
      const word = sql.slice(tokens.starts[i], tokens.ends[i]).toUpperCase();
      if ((word === 'ORDER' || word === 'GROUP') && isWordAt(sql, i + 1, 'BY')) byList[stack.length] = true;
      else if (CLAUSE_WORDS.has(word)) byList[stack.length] = false;
    } else if (kind === TokenKind.Open) {
      const opensSelect = isWordAt(sql, i + 1, 'SELECT');
      const before = i > 0 ? tokens.kinds[i - 1] : undefined;
      const itemStart = before === TokenKind.Open || before === TokenKind.Comma;
      stack.push({ span: opensSelect ? spans.length : -1, start: tokens.starts[i]!, firstParameter: parameters, afterIn: isWordAt(sql, i - 1, 'IN'), itemStart, inByList: byList[stack.length] === true });
      byList[stack.length] = false;
      if (opensSelect) spans.push(undefined);
    } else if (kind === TokenKind.Close) {
      const open = stack.pop();
      if (open && open.span >= 0) {
        const after = i + 1 < count ? tokens.kinds[i + 1] : undefined;
        const wholeItem = open.itemStart && (after === TokenKind.Close || after === TokenKind.Comma);
        spans[open.span] = { open: open.start, close: tokens.starts[i]!, firstParameter: open.firstParameter, endParameter: parameters, afterIn: open.afterIn, wholeItem, inByList: open.inByList };
      }
    }
  }
  return spans.filter((s): s is SubquerySpan => s !== undefined);
}

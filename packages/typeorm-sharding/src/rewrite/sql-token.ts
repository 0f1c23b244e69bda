/**
 * The rewrite's unit of change (ShardingSphere's SQL token): each concern of the rewrite — IN
 * lists, the row count, derived columns, HAVING, GROUP BY, aliases, table names — says what it
 * changes as tokens at positions of the original text, and one splice applies them all. The
 * rest of the statement (other predicates, comments, spacing, parameters) is kept byte for byte.
 */
import { ShardingInternalError } from '../errors/index.js';
import { firstParameterFrom, inStartOrder, parameterStarts, type ParameterizedSql } from '../parameterize/index.js';

/**
 * `sql[start, end)` becomes `text` (an empty range inserts). The statement's `?` parameters
 * inside the range go with it, and `values` — the values of the `?`s of `text`, in order —
 * take their place in the parameter list.
 */
export interface SqlToken {
  readonly start: number;
  readonly end: number;
  readonly text: string;
  readonly values?: readonly unknown[];
}

/** A statement's text and parameters after its tokens are applied. */
export interface RewrittenText {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}


/**
 * Applies non-overlapping tokens, given in any order, to `p` in one pass. Tokens that share a
 * start keep their given order (several inserts at one point stay in order). Parameters are
 * found by offset (`parameterStarts`), so a token costs O(log n) in the statement's
 * parameters: one batch of a 5,000-value IN list costs its own values, not the whole list.
 * Without a change to the parameters, the original array is returned.
 */
export function applyTokens(p: ParameterizedSql, tokens: readonly SqlToken[]): RewrittenText {
  const n = tokens.length;
  if (n === 0) return { sql: p.sql, parameters: p.parameters };
  const sorted = inStartOrder(tokens);
  let sql = '';
  let at = 0;
  let valued = false;
  for (let i = 0; i < n; i++) {
    const token = sorted[i]!;
    if (token.start < at || token.end < token.start || token.end > p.sql.length) {
      throw new ShardingInternalError(`rewrite token [${token.start}, ${token.end}) overlaps another or lies outside the text`, { stage: 'rewrite', sql: p.sql });
    }
    sql += p.sql.slice(at, token.start) + token.text;
    at = token.end;
    if (token.values !== undefined && token.values.length > 0) valued = true;
  }
  sql += p.sql.slice(at);
  return { sql, parameters: p.parameters.length === 0 && !valued ? p.parameters : parametersAfter(p, sorted, valued) };
}

/** The parameter list with each token's parameters replaced by its values. */
function parametersAfter(p: ParameterizedSql, sorted: readonly SqlToken[], valued: boolean): readonly unknown[] {
  const starts = parameterStarts(p);
  const all = p.parameters;
  const out: unknown[] = [];
  let next = 0;
  let dropped = false;
  for (const token of sorted) {
    const first = firstParameterFrom(starts, token.start, next);
    const past = token.end > token.start ? firstParameterFrom(starts, token.end, first) : first;
    for (let i = next; i < first; i++) out.push(all[i]);
    if (token.values) for (const value of token.values) out.push(value);
    if (past > first) dropped = true;
    next = past;
  }
  if (!valued && !dropped) return all;
  for (let i = next; i < all.length; i++) out.push(all[i]);
  return out;
}

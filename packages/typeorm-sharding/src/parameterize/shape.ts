/**
 * One walk over the tokens of a statement that decides which tokens are values and
 * writes the statement's shape: the plan-cache key and, on request, the parser text.
 */
import type { InListSlot, SqlDialect, ValueSlot } from './parameterized-sql.js';
import { TokenKind, type TokenBuffer } from './lexer.js';
import { isWord } from './keywords.js';
import { decodeString } from './decode-string.js';
import { parserOperator, parserQuotedIdent, parserString, parserWord } from './parser-text.js';
import { endsByList, isColumnPosition, isCountArgument, isTypeName, nullIsOperator, wordAt } from './token-context.js';

/** Aggregates whose `DISTINCT` the parser grammar does not accept. */
const DISTINCT_WRAPPED = /^(SUM|AVG|MIN|MAX)$/i;

/** What one walk produces. */
export interface Shape {
  readonly key: string;
  /** '' unless the walk was asked for it. */
  readonly parserSql: string;
  readonly slots: ValueSlot[];
  readonly inLists: InListSlot[];
  /** `?` placeholders seen. */
  readonly placeholders: number;
}

/**
 * Walks `t` (the tokens of `sql`). `definition` is set for DDL-like statements whose
 * literals are part of the definition and stay code. `withParser` also writes `parserSql`.
 */
export function walkShape(
  sql: string,
  t: TokenBuffer,
  parameters: readonly unknown[],
  dialect: SqlDialect,
  definition: boolean,
  withParser: boolean,
): Shape {
  // Hot loop: locals only (no closures capture them, so they stay in registers).
  const { kinds, starts, ends, count } = t;
  const slots: ValueSlot[] = [];
  const inLists: InListSlot[] = [];
  let key = '';
  let psql = '';
  // The key is copied from the text in verbatim runs sql[runStart, runEnd) as long as
  // the text's own spacing is already canonical, which it is for TypeORM's SQL.
  let runStart = 0;
  let runEnd = -1;
  // true: no space before the next piece (start of text, after `(` or `.`)
  let glue = true;
  let placeholders = 0;
  let depth = 0;
  // depths of the ORDER BY / GROUP BY lists whose bare integers are column positions, innermost
  // last (`GROUP_CONCAT(x ORDER BY y)` inside an outer ORDER BY list must not end the outer one)
  const byDepths: number[] = [];
  const byDepth = (): number => (byDepths.length === 0 ? -1 : byDepths[byDepths.length - 1]!);
  // depth inside `DECIMAL(…)`-style parentheses whose numbers are sizes
  let sizeDepth = -1;
  // depths of `SUM(DISTINCT …` calls whose argument the parser text wraps (see below)
  let distinctDepths: number[] | undefined;

  for (let i = 0; i < count; i++) {
    const kind = kinds[i]!;
    const s = starts[i]!;
    const e = ends[i]!;
    // null: the token's own text
    let keyPiece: string | null = null;
    let parserPiece: string | null = null;
    let spaceBefore = true;
    let spaceAfter = true;
    let slot: ValueSlot | undefined;

    switch (kind) {
      case TokenKind.Open: {
        if (!definition && wordAt(sql, t, i - 1, 'in')) {
          const close = inListClose(sql, t, i);
          if (close > 0) {
            const items: ValueSlot[] = [];
            for (let j = i + 1; j < close; j += 2) {
              items.push(makeSlot(sql, t, j, kinds[j] === TokenKind.Param ? placeholders++ : -1, parameters, dialect));
            }
            inLists.push({ open: s, close: starts[close]!, items, negated: wordAt(sql, t, i - 2, 'not') });
            keyPiece = '(?…)';
            if (withParser) parserPiece = `(:l${inLists.length - 1})`;
            i = close;
            break;
          }
        }
        depth++;
        if (wordAt(sql, t, i - 2, 'as') && isTypeName(sql, t, i - 1)) sizeDepth = depth;
        spaceAfter = false;
        break;
      }
      case TokenKind.Close:
        if (depth === byDepth()) byDepths.pop();
        if (depth === sizeDepth) sizeDepth = -1;
        if (withParser && distinctDepths !== undefined && distinctDepths[distinctDepths.length - 1] === depth) {
          distinctDepths.pop();
          parserPiece = '))';
        }
        depth--;
        spaceBefore = false;
        break;
      case TokenKind.Comma:
        spaceBefore = false;
        break;
      case TokenKind.Dot:
        spaceBefore = false;
        spaceAfter = false;
        break;
      case TokenKind.Semicolon:
        byDepths.length = 0;
        spaceBefore = false;
        break;
      case TokenKind.Param:
        slot = makeSlot(sql, t, i, placeholders++, parameters, dialect);
        break;
      case TokenKind.Number:
        if (!definition && depth !== sizeDepth && !(byDepth() === depth && isColumnPosition(sql, t, i)) && !isCountArgument(sql, t, i)) {
          slot = makeSlot(sql, t, i, -1, parameters, dialect);
        }
        break;
      case TokenKind.String:
        if (definition || wordAt(sql, t, i - 1, 'escape') || wordAt(sql, t, i - 1, 'separator')) {
          if (withParser) parserPiece = parserString(sql.slice(s, e), dialect);
        } else {
          slot = makeSlot(sql, t, i, -1, parameters, dialect);
        }
        break;
      case TokenKind.Word:
        if (!definition && isWord(sql, s, e, 'null') && !nullIsOperator(sql, t, i)) {
          slot = makeSlot(sql, t, i, -1, parameters, dialect);
          break;
        }
        if (isWord(sql, s, e, 'by')) {
          if ((wordAt(sql, t, i - 1, 'order') || wordAt(sql, t, i - 1, 'group')) && byDepth() !== depth) byDepths.push(depth);
        } else if (byDepth() === depth && endsByList(sql, s, e)) {
          byDepths.pop();
        }
        if (withParser) {
          // node-sql-parser's grammar knows DISTINCT only in COUNT and GROUP_CONCAT: `SUM(DISTINCT x)` is
          // written `SUM(__SHARD_DISTINCT(x))` for it, and read back as a DISTINCT aggregate.
          if (i >= 2 && isWord(sql, s, e, 'distinct') && kinds[i - 1] === TokenKind.Open && DISTINCT_WRAPPED.test(sql.slice(starts[i - 2], ends[i - 2]))) {
            (distinctDepths ??= []).push(depth);
            parserPiece = '__SHARD_DISTINCT(';
            spaceAfter = false;
          } else {
            parserPiece = parserWord(sql, t, i);
          }
        }
        break;
      case TokenKind.QuotedIdent:
        if (withParser) parserPiece = parserQuotedIdent(sql.slice(s, e));
        break;
      case TokenKind.Operator:
        if (withParser) parserPiece = parserOperator(sql.slice(s, e), dialect);
        break;
    }

    if (slot !== undefined) {
      slots.push(slot);
      keyPiece = '?';
      if (withParser) parserPiece = `:p${slots.length - 1}`;
    }
    const space = !glue && spaceBefore;
    if (keyPiece === null) {
      const gapOk = space ? s === runEnd + 1 && sql.charCodeAt(runEnd) === 32 : s === runEnd;
      if (runEnd < 0 || !gapOk) {
        if (runEnd >= 0) key += sql.slice(runStart, runEnd);
        if (space) key += ' ';
        runStart = s;
      }
      runEnd = e;
    } else {
      if (runEnd >= 0) key += sql.slice(runStart, runEnd);
      runEnd = -1;
      key += space ? ' ' + keyPiece : keyPiece;
    }
    if (withParser) {
      if (space) psql += ' ';
      psql += parserPiece ?? sql.slice(s, e);
    }
    glue = !spaceAfter;
  }
  if (runEnd >= 0) key += sql.slice(runStart, runEnd);

  return { key, parserSql: psql, slots, inLists, placeholders };
}

/** The value slot of token `i`; `param` is its placeholder number, -1 for a literal. */
function makeSlot(
  sql: string,
  t: TokenBuffer,
  i: number,
  param: number,
  parameters: readonly unknown[],
  dialect: SqlDialect,
): ValueSlot {
  const start = t.starts[i]!;
  const end = t.ends[i]!;
  switch (t.kinds[i]) {
    case TokenKind.Param:
      return { start, end, paramIndex: param, value: parameters[param], isNumericLiteral: false };
    case TokenKind.Number:
      return { start, end, paramIndex: undefined, value: numberValue(sql, start, end), isNumericLiteral: true };
    case TokenKind.String:
      return { start, end, paramIndex: undefined, value: decodeString(sql, start, end, dialect), isNumericLiteral: false };
    default:
      return { start, end, paramIndex: undefined, value: null, isNumericLiteral: false };
  }
}

/** A numeric literal's digits; a sign separated by blanks (`- 5`) is joined (`-5`). */
function numberValue(sql: string, s: number, e: number): string {
  if (sql.charCodeAt(s) !== 45) return sql.slice(s, e);
  let d = s + 1;
  while (sql.charCodeAt(d) <= 32) d++;
  return d === s + 1 ? sql.slice(s, e) : '-' + sql.slice(d, e);
}

/**
 * If the `(` at token `open` starts a list of values separated by commas (`IN (?, 5, 'a', NULL)`),
 * returns the index of its `)`; otherwise -1 (`IN (SELECT …)`, `IN (1, a + 1)`, `IN ()`).
 */
function inListClose(sql: string, t: TokenBuffer, open: number): number {
  const { kinds, starts, ends, count } = t;
  let j = open + 1;
  for (;;) {
    if (j >= count) return -1;
    const k = kinds[j];
    const isValue =
      k === TokenKind.Param ||
      k === TokenKind.Number ||
      k === TokenKind.String ||
      (k === TokenKind.Word && isWord(sql, starts[j]!, ends[j]!, 'null'));
    if (!isValue || ++j >= count) return -1;
    if (kinds[j] === TokenKind.Close) return j;
    if (kinds[j] !== TokenKind.Comma) return -1;
    j++;
  }
}

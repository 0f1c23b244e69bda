/**
 * The select items of one SELECT of a compound in its text: where each item is, where its
 * expression ends (before its alias), and which `?` parameters it holds. The compound names
 * each unaliased item and selects comparison keys of the items' expressions next to them.
 */
import { lex, TokenBuffer, TokenKind, type SqlDialect } from '../../parameterize/index.js';
import { selectItemSpans } from '../select/select-item-names.js';

/** One item of a select list. */
export interface ItemText {
  readonly start: number;
  readonly end: number;
  /** Offset just past its expression: before `AS alias` (or ` alias`) when it has an alias. */
  readonly expressionEnd: number;
  /** Index of the first `?` of its expression among the statement's parameters. */
  readonly firstParameter: number;
  /** Number of `?` in its expression. */
  readonly parameterCount: number;
}

const buffer = new TokenBuffer();

/**
 * The items of the outermost select list of `sql`. `aliased[i]` says whether item i has an
 * alias (known from the parsed statement): the alias is then its last token.
 */
export function selectItemsOf(sql: string, dialect: SqlDialect, aliased: readonly boolean[]): ItemText[] {
  const spans = selectItemSpans({ sql }, dialect);
  const count = lex(sql, dialect, buffer);
  const tokens = Array.from({ length: count }, (_, i) => ({ kind: buffer.kinds[i]!, start: buffer.starts[i]!, end: buffer.ends[i]! }));
  return spans.map((span, index) => {
    const inside = tokens.filter((t) => t.start >= span.start && t.end <= span.end);
    let expression = inside;
    if (aliased[index] && inside.length > 1) {
      const before = inside[inside.length - 2]!;
      const as = before.kind === TokenKind.Word && sql.slice(before.start, before.end).toUpperCase() === 'AS';
      expression = inside.slice(0, as ? -2 : -1);
    }
    const expressionEnd = expression.length > 0 ? expression[expression.length - 1]!.end : span.end;
    return {
      start: span.start,
      end: span.end,
      expressionEnd,
      firstParameter: tokens.filter((t) => t.kind === TokenKind.Param && t.start < span.start).length,
      parameterCount: expression.filter((t) => t.kind === TokenKind.Param).length,
    };
  });
}

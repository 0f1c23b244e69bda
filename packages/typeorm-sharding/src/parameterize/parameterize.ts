import type { InListSlot, ParameterizedSql, SqlDialect, ValueSlot } from './parameterized-sql.js';
import { TokenBuffer, TokenKind, lex } from './lexer.js';
import { DEFINITION_VERBS } from './keywords.js';
import { walkShape } from './shape.js';
import { ParameterCountError } from './parameterize-error.js';
import { MemoKey, TextMemo } from './text-memo.js';

// One buffer for every call: parameterize is synchronous and never re-entered.
const tokens = new TokenBuffer();

/** First keyword of the lexed statement, upper-cased, skipping opening parentheses. */
function firstVerb(sql: string, t: TokenBuffer): string {
  for (let i = 0; i < t.count; i++) {
    const kind = t.kinds[i];
    if (kind === TokenKind.Open) continue;
    return kind === TokenKind.Word ? sql.slice(t.starts[i], t.ends[i]).toUpperCase() : '';
  }
  return '';
}

/** The parser text of a statement's text: a fact of the text, shared by its bindings. */
const PARSER_TEXT = new MemoKey<string>('parser text');

/**
 * A parameterized statement; `parserSql` is only written when first read (on a plan-cache miss).
 * The text cache's bindings of one text are statements of this class too (one shape for every
 * stage's property reads), sharing the text's memo.
 */
export class ParameterizedStatement implements ParameterizedSql {
  constructor(
    readonly sql: string,
    readonly parameters: readonly unknown[],
    readonly key: string,
    readonly slots: readonly ValueSlot[],
    readonly inLists: readonly InListSlot[],
    readonly verb: string,
    private readonly dialect: SqlDialect,
    readonly memo: TextMemo = new TextMemo(),
  ) {}

  get parserSql(): string {
    return this.memo.get(PARSER_TEXT, () => {
      lex(this.sql, this.dialect, tokens);
      const definition = DEFINITION_VERBS.has(this.verb);
      return walkShape(this.sql, tokens, this.parameters, this.dialect, definition, true).parserSql;
    });
  }

  /** The same text with other `?` values (their slots rebound; inline literals are part of the text). */
  withParameters(parameters: readonly unknown[], slots: readonly ValueSlot[], inLists: readonly InListSlot[]): ParameterizedStatement {
    return new ParameterizedStatement(this.sql, parameters, this.key, slots, inLists, this.verb, this.dialect, this.memo);
  }
}

/**
 * Cuts one statement into its shape and its values: every `?` and every inline literal
 * (number, string, NULL) becomes a value slot, every `IN (v1, v2, …)` of plain values
 * one IN-list slot. Literals that are not values stay code: `IS NULL`, `DEFAULT`,
 * `ORDER BY 2`, `COUNT(1)`, `CAST(x AS DECIMAL(10, 2))`, `ESCAPE '!'`, and all literals of
 * DDL statements (CREATE, ALTER, …).
 *
 * @throws ParameterCountError when the `?` count differs from `parameters.length`.
 */
export function parameterize(sql: string, parameters: readonly unknown[], dialect: SqlDialect): ParameterizedStatement {
  lex(sql, dialect, tokens);
  const verb = firstVerb(sql, tokens);
  const shape = walkShape(sql, tokens, parameters, dialect, DEFINITION_VERBS.has(verb), false);
  if (shape.placeholders !== parameters.length) {
    throw new ParameterCountError(shape.placeholders, parameters.length, { sql });
  }
  return new ParameterizedStatement(sql, parameters, shape.key, shape.slots, shape.inLists, verb, dialect);
}

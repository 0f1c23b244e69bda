import type { TextMemo } from './text-memo.js';

/**
 * Output of the parameterize stage: one SQL text as TypeORM emitted it, cut into the
 * parts the later stages need. Everything here is positions into `sql` plus values;
 * nothing is re-generated, so the rewrite stage can splice the original text.
 */

/** How the lexer reads quotes: MySQL/MariaDB (backtick identifiers, `"…"` strings) or SQLite (`"…"` identifiers). */
export type SqlDialect = 'mysql' | 'sqlite';

/**
 * One value position in the SQL: a `?` placeholder or an inline literal
 * (number, string, NULL). Literals count as values so that `id = 5` and `id = 7`
 * share one template.
 */
export interface ValueSlot {
  /** Offset of the first character of the slot in `sql`. */
  readonly start: number;
  /** Offset one past the last character of the slot in `sql`. */
  readonly end: number;
  /** Index into the caller's parameter array when the slot is a `?`; undefined for a literal. */
  readonly paramIndex: number | undefined;
  /**
   * The value: `parameters[paramIndex]` for a `?`; for a literal, the decoded value:
   * numbers keep their digits as a string (`'18446744073709551615'`, `'1.5'`) so no
   * precision is lost, strings are unescaped, `NULL` is `null`.
   */
  readonly value: unknown;
  /** True for a numeric literal written in the text (value is its digit string). */
  readonly isNumericLiteral: boolean;
}

/** An `IN ( v1, v2, … )` list whose items are all value slots. It is one template slot. */
export interface InListSlot {
  /** Offset of `(`. */
  readonly open: number;
  /** Offset of `)`. */
  readonly close: number;
  /** The items, in text order. Never empty (TypeORM writes `In([])` as `0=1`). */
  readonly items: readonly ValueSlot[];
  /** True when written `NOT IN (…)`. */
  readonly negated: boolean;
}

/** Result of parameterizing one statement. */
export interface ParameterizedSql {
  /** The SQL exactly as received. */
  readonly sql: string;
  /** The parameters exactly as received. */
  readonly parameters: readonly unknown[];
  /**
   * The plan-cache key: the statement's shape with every value slot replaced by `?`
   * and every IN list by `(?…)`; insignificant whitespace and comments are dropped.
   * Two statements with the same key must have the same plan.
   */
  readonly key: string;
  /**
   * The same shape as text node-sql-parser's MySQL grammar accepts: identifiers in
   * backticks, value slot *n* written `:p<n>`, IN list *k* written `(:l<k>)`, comments removed.
   * Parsed once per key (on a cache miss). `DEFAULT` used as a value (`VALUES (?, DEFAULT)`,
   * `SET a = DEFAULT`) is written `DEFAULT()`, the only form that grammar accepts there.
   * Written on first read (a getter): copy the object with care, a spread drops it.
   */
  readonly parserSql: string;
  /** Value slots outside IN lists, in text order; slot n is `:p<n>` in `parserSql`. */
  readonly slots: readonly ValueSlot[];
  /** IN lists, in text order; list k is `(:l<k>)` in `parserSql`. */
  readonly inLists: readonly InListSlot[];
  /** First keyword, upper-case (`SELECT`, `INSERT`, `START`, `BEGIN`, `SAVEPOINT`, …); '' when none. */
  readonly verb: string;
  /**
   * Facts later stages work out once per text (see `text-memo.ts`), shared by every binding
   * of the text; absent on statements built by hand (`memoOf` keeps theirs apart).
   */
  readonly memo?: TextMemo;
}

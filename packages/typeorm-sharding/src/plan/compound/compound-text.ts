/**
 * Cuts a compound SELECT (`… UNION [ALL | DISTINCT] …`, `EXCEPT`, `INTERSECT`) into its
 * SELECTs on the original text, with the lexer: each branch is a span of the statement with
 * its own `?` parameters, and the ORDER BY / LIMIT written after the last branch belong to
 * the whole compound, as MySQL and SQLite scope them. A branch in parentheses (MySQL) keeps
 * its own ORDER BY / LIMIT.
 *
 * The parser is not used for this: node-sql-parser attaches a trailing ORDER BY to the last
 * SELECT, and the branches must be run as the text the user wrote.
 */
import type { SetOperation } from '../../merge/index.js';
import { lex, TokenBuffer, TokenKind, type SqlDialect, type TokenKindValue } from '../../parameterize/index.js';

/** A set operator between two SELECTs (the merge's own type: it applies them). */
export type SetOperator = SetOperation;

/** One SELECT of a compound statement: a span of the original text. */
export interface BranchText {
  /** Offset of its first character (inside its parentheses when it is written in them). */
  readonly start: number;
  /** Offset one past its last character. */
  readonly end: number;
  /** Written in parentheses (MySQL): its own ORDER BY / LIMIT apply to it alone. */
  readonly parenthesised: boolean;
  /** Index of its first `?` among the statement's parameters. */
  readonly firstParameter: number;
  /** Number of `?` it holds. */
  readonly parameterCount: number;
}

/** One term of the compound's ORDER BY. */
export type CompoundOrderTerm =
  | { readonly kind: 'position'; readonly position: number; readonly direction: 'ASC' | 'DESC' }
  | { readonly kind: 'name'; readonly name: string; readonly direction: 'ASC' | 'DESC' }
  /** Anything else (an expression, `COLLATE`, `NULLS FIRST` …), as written. */
  | { readonly kind: 'other'; readonly text: string };

/** A compound statement cut into its parts. */
export interface CompoundText {
  readonly branches: readonly BranchText[];
  /** `operators[i]` joins `branches[i]` and `branches[i + 1]`. */
  readonly operators: readonly SetOperator[];
  /** ORDER BY of the whole compound, in order (empty when it has none). */
  readonly orderBy: readonly CompoundOrderTerm[];
  /** Offsets of the outer LIMIT's values (a literal or a `?`), to find their value slots. */
  readonly limit: { readonly count: number; readonly offset: number | undefined } | undefined;
  /** Why the statement cannot be run branch by branch (the database may reject it too); undefined when it can. */
  readonly problem: string | undefined;
}

interface Token {
  readonly kind: TokenKindValue;
  readonly start: number;
  readonly end: number;
  readonly depth: number;
  /** Upper-case text of a word of up to 9 characters (every keyword), '' for other tokens. */
  readonly word: string;
  /** `?` tokens before this one. */
  readonly paramsBefore: number;
}

const SET_OPERATORS = new Set(['UNION', 'EXCEPT', 'INTERSECT']);
/** Clauses that may end a SELECT but not a branch of a compound. */
const LOCKING = new Set(['FOR', 'LOCK', 'INTO']);
const buffer = new TokenBuffer();

function tokensOf(sql: string, dialect: SqlDialect): Token[] {
  const count = lex(sql, dialect, buffer);
  const out: Token[] = [];
  let depth = 0;
  let params = 0;
  for (let i = 0; i < count; i++) {
    const kind = buffer.kinds[i] as TokenKindValue;
    const start = buffer.starts[i]!;
    const end = buffer.ends[i]!;
    if (kind === TokenKind.Close) depth = Math.max(0, depth - 1);
    // Only keywords are looked at (none is longer than INTERSECT).
    const word = kind === TokenKind.Word && end - start <= 9 ? sql.slice(start, end).toUpperCase() : '';
    out.push({ kind, start, end, depth, word, paramsBefore: params });
    if (kind === TokenKind.Open) depth++;
    if (kind === TokenKind.Param) params++;
  }
  return out;
}

/** Index of the `)` closing the `(` at `open`, or -1. */
function closing(tokens: readonly Token[], open: number, end: number): number {
  for (let i = open + 1; i < end; i++) {
    if (tokens[i]!.kind === TokenKind.Close && tokens[i]!.depth === tokens[open]!.depth) return i;
  }
  return -1;
}

/**
 * Cuts `sql` into the SELECTs of a compound statement. Returns undefined when the statement
 * has no set operator at its top level (a plain SELECT, or a compound only inside a subquery).
 */
export function splitCompound(sql: string, dialect: SqlDialect): CompoundText | undefined {
  const all = tokensOf(sql, dialect);
  let semicolon = -1;
  const cuts: number[] = [];
  for (let i = 0; i < all.length && semicolon < 0; i++) {
    const t = all[i]!;
    if (t.depth !== 0) continue;
    if (t.kind === TokenKind.Semicolon) semicolon = i;
    else if (SET_OPERATORS.has(t.word)) cuts.push(i);
  }
  if (cuts.length === 0) return undefined;
  const top = semicolon >= 0 ? all.slice(0, semicolon) : all;
  const result = { branches: [] as BranchText[], operators: [] as SetOperator[], orderBy: [] as CompoundOrderTerm[], limit: undefined as CompoundText['limit'] };
  const refuse = (problem: string): CompoundText => ({ ...result, problem });
  if (semicolon >= 0 && semicolon < all.length - 1) return refuse('the text holds several statements');

  const segments: [number, number][] = [];
  let from = 0;
  for (const cut of cuts) {
    segments.push([from, cut]);
    const modifier = top[cut + 1]?.word;
    const explicit = modifier === 'ALL' || modifier === 'DISTINCT';
    const op = top[cut]!.word as SetOperator['op'];
    if (dialect === 'sqlite' && explicit && (modifier === 'DISTINCT' || op !== 'UNION')) return refuse(`SQLite has no ${op} ${modifier} (the database rejects it)`);
    result.operators.push({ op, all: modifier === 'ALL' });
    from = cut + (explicit ? 2 : 1);
  }
  segments.push([from, top.length]);

  for (let s = 0; s < segments.length; s++) {
    const [a, b] = segments[s]!;
    const last = s === segments.length - 1;
    if (a >= b) return refuse('a set operator without a SELECT on both sides');
    let branchEnd = b;
    let parenthesised = false;
    let [first, stop] = [a, b];
    if (top[a]!.kind === TokenKind.Open) {
      const close = closing(top, a, b);
      if (close < 0) return refuse('unbalanced parentheses');
      if (dialect === 'sqlite') return refuse('SQLite does not accept a SELECT of a compound in parentheses (the database rejects it)');
      if (!last && close !== b - 1) return refuse('text after a parenthesised SELECT of a compound');
      branchEnd = close + 1;
      parenthesised = true;
      [first, stop] = [a + 1, close];
      // `((SELECT …))`: the same SELECT.
      while (top[first]?.kind === TokenKind.Open && closing(top, first, stop) === stop - 1) [first, stop] = [first + 1, stop - 1];
      if (top.slice(first, stop).some((t) => t.depth === top[first]!.depth && SET_OPERATORS.has(t.word))) {
        return refuse('a compound SELECT nested in parentheses inside another one; write it as one flat compound, or as a derived table queried on its own');
      }
    } else {
      // Unparenthesised: ORDER BY / LIMIT of the last SELECT are the compound's; elsewhere the database rejects them.
      let clause = -1;
      for (let i = a; i < b && clause < 0; i++) {
        const t = top[i]!;
        if (t.depth === 0 && (t.word === 'ORDER' || t.word === 'LIMIT' || LOCKING.has(t.word))) clause = i;
      }
      if (clause >= 0) {
        if (LOCKING.has(top[clause]!.word)) return refuse(`a ${top[clause]!.word} clause in a compound SELECT; run a locking read as SELECTs of its own`);
        if (!last) return refuse('ORDER BY / LIMIT on a SELECT of a compound must be written with that SELECT in parentheses (the database rejects it as written)');
        branchEnd = clause;
        stop = clause;
      }
    }
    if (first >= stop || top[first]!.word !== 'SELECT') return refuse('each part of a compound must be a SELECT (not VALUES, TABLE or WITH)');
    const firstToken = top[first]!;
    const lastToken = top[stop - 1]!;
    result.branches.push({
      start: firstToken.start,
      end: lastToken.end,
      parenthesised,
      firstParameter: firstToken.paramsBefore,
      parameterCount: lastToken.paramsBefore + (lastToken.kind === TokenKind.Param ? 1 : 0) - firstToken.paramsBefore,
    });
    if (last) {
      const tail = readTail(sql, top.slice(branchEnd, b));
      if (typeof tail === 'string') return refuse(tail);
      result.orderBy.push(...tail.orderBy);
      result.limit = tail.limit;
    }
  }
  return { ...result, problem: undefined };
}

/** The ORDER BY / LIMIT after the last SELECT, or why they cannot be read. */
function readTail(sql: string, tokens: readonly Token[]): { orderBy: CompoundOrderTerm[]; limit: CompoundText['limit'] } | string {
  const orderBy: CompoundOrderTerm[] = [];
  let limit: CompoundText['limit'];
  let i = 0;
  if (tokens[i]?.word === 'ORDER') {
    if (tokens[i + 1]?.word !== 'BY') return 'ORDER without BY';
    i += 2;
    for (;;) {
      const start = i;
      while (i < tokens.length && !(tokens[i]!.depth === tokens[start]!.depth && (tokens[i]!.kind === TokenKind.Comma || tokens[i]!.word === 'LIMIT' || LOCKING.has(tokens[i]!.word)))) i++;
      if (i === start) return 'an empty ORDER BY term';
      orderBy.push(orderTerm(sql, tokens.slice(start, i)));
      if (tokens[i]?.kind !== TokenKind.Comma) break;
      i++;
    }
  }
  if (tokens[i]?.word === 'LIMIT') {
    const value = (t: Token | undefined): boolean => t !== undefined && (t.kind === TokenKind.Number || t.kind === TokenKind.Param);
    const x = tokens[i + 1];
    if (!value(x)) return 'a LIMIT that is not a number or a parameter';
    i += 2;
    if (tokens[i]?.kind === TokenKind.Comma || tokens[i]?.word === 'OFFSET') {
      const y = tokens[i + 1];
      if (!value(y)) return 'an OFFSET that is not a number or a parameter';
      // `LIMIT offset, count` / `LIMIT count OFFSET offset`.
      limit = tokens[i]!.kind === TokenKind.Comma ? { count: y!.start, offset: x!.start } : { count: x!.start, offset: y!.start };
      i += 2;
    } else {
      limit = { count: x!.start, offset: undefined };
    }
  }
  if (i < tokens.length) {
    const word = tokens[i]!.word;
    return LOCKING.has(word) ? `a ${word} clause in a compound SELECT; run a locking read as SELECTs of its own` : `unexpected text after the last SELECT of a compound: ${sql.slice(tokens[i]!.start, tokens[tokens.length - 1]!.end)}`;
  }
  return { orderBy, limit };
}

function orderTerm(sql: string, tokens: readonly Token[]): CompoundOrderTerm {
  const lastWord = tokens[tokens.length - 1]!.word;
  const direction = lastWord === 'DESC' ? 'DESC' : 'ASC';
  const body = lastWord === 'ASC' || lastWord === 'DESC' ? tokens.slice(0, -1) : tokens;
  const only = body.length === 1 ? body[0]! : undefined;
  const text = only ? sql.slice(only.start, only.end) : '';
  if (only?.kind === TokenKind.Number && /^\d+$/.test(text)) return { kind: 'position', position: Number(text), direction };
  if (only?.kind === TokenKind.Word) return { kind: 'name', name: text, direction };
  if (only?.kind === TokenKind.QuotedIdent) return { kind: 'name', name: text.slice(1, -1).split(text[0]! + text[0]!).join(text[0]!), direction };
  return { kind: 'other', text: sql.slice(tokens[0]!.start, tokens[tokens.length - 1]!.end) };
}

/** The text and parameters of one branch, to be run as a statement of its own. */
export function branchStatement(sql: string, parameters: readonly unknown[], branch: BranchText): { sql: string; parameters: unknown[] } {
  return { sql: sql.slice(branch.start, branch.end), parameters: parameters.slice(branch.firstParameter, branch.firstParameter + branch.parameterCount) };
}

/**
 * Facts about one statement text that later stages work out once and reuse for every
 * statement with that text: TypeORM sends the same text again and again with new `?` values,
 * and the text cache hands each binding out as a copy of one parameterized shape, which
 * shares its memo (see `text-cache.ts`). The tokens, where the tables and clauses are, where
 * each parameter sits: none of it depends on the values, so none of it is worked out twice.
 */
import { lex, TokenBuffer, type TokenKindValue } from './lexer.js';
import type { ParameterizedSql, SqlDialect } from './parameterized-sql.js';

/** The name of one fact kept in a memo; `T` is the type of the fact. */
export class MemoKey<T> {
  /** Only here to make `MemoKey<A>` and `MemoKey<B>` different types. */
  declare readonly _type: T;
  constructor(readonly name: string) {}
}

/** The facts worked out about one text. */
export class TextMemo {
  /** Made on the first fact: SQLite texts with inline values are often planned once and never asked. */
  private facts: Map<MemoKey<unknown>, unknown> | undefined;

  /** The fact `key`, computed by `compute` the first time it is asked for. */
  get<T>(key: MemoKey<T>, compute: () => T): T {
    const facts = (this.facts ??= new Map());
    if (facts.has(key)) return facts.get(key) as T;
    const value = compute();
    facts.set(key, value);
    return value;
  }
}

/** Memos of statements built by hand rather than by `parameterize` (tests, rewritten texts). */
const detached = new WeakMap<object, TextMemo>();

/** The memo of `p`'s text. */
export function memoOf(p: Pick<ParameterizedSql, 'sql' | 'memo'>): TextMemo {
  if (p.memo) return p.memo;
  let memo = detached.get(p);
  if (!memo) detached.set(p, (memo = new TextMemo()));
  return memo;
}

/** The tokens of one text, read-only (see `lex`): token `i` is `sql.slice(starts[i], ends[i])`. */
export interface LexedText {
  readonly count: number;
  readonly kinds: ArrayLike<TokenKindValue | number>;
  readonly starts: ArrayLike<number>;
  readonly ends: ArrayLike<number>;
}

const LEXED: Record<SqlDialect, MemoKey<LexedText>> = { mysql: new MemoKey('lexed mysql'), sqlite: new MemoKey('lexed sqlite') };
const buffer = new TokenBuffer();

/** The tokens of `p.sql`, lexed once per text and dialect. */
export function lexedOf(p: Pick<ParameterizedSql, 'sql' | 'memo'>, dialect: SqlDialect): LexedText {
  return memoOf(p).get(LEXED[dialect], () => {
    const count = lex(p.sql, dialect, buffer);
    return Object.freeze({ count, kinds: buffer.kinds.slice(0, count), starts: buffer.starts.slice(0, count), ends: buffer.ends.slice(0, count) });
  });
}

const PARAMETER_STARTS = new MemoKey<Int32Array>('parameter starts');

/**
 * Where each `?` parameter of `p` is: `starts[i]` is the offset of parameter `i`. Parameters
 * are numbered in text order, so the array ascends: the parameters within a span of the text
 * are one run of indexes, found by binary search.
 */
export function parameterStarts(p: ParameterizedSql): Int32Array {
  return memoOf(p).get(PARAMETER_STARTS, () => {
    const starts = new Int32Array(p.parameters.length);
    for (const slot of p.slots) if (slot.paramIndex !== undefined) starts[slot.paramIndex] = slot.start;
    for (const list of p.inLists) for (const item of list.items) if (item.paramIndex !== undefined) starts[item.paramIndex] = item.start;
    return starts;
  });
}

/** Index of the first parameter whose offset is at least `at` (the number of parameters before `at`). */
export function firstParameterFrom(starts: Int32Array, at: number, from = 0): number {
  let lo = from;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (starts[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

import { hintSet, HINT_NAMES, NO_HINTS, type RoutingHintName, type RoutingHints } from './hint.js';

/** What is wrong with a hint. */
export type HintProblemKind =
  /** A hint-shaped word the router does not know (`FORCE_MASTR`). */
  | 'unknown-hint'
  /** A hint with arguments, stray characters, or an unclosed comment. */
  | 'malformed-hint'
  /** `FORCE_MASTER` and `FORCE_SLAVE` together: the primary wins. */
  | 'conflicting-hints'
  /** `MASTER_ONLY` on something else than `BEGIN` / `START TRANSACTION`: read as `FORCE_MASTER`. */
  | 'misplaced-hint';

/** One problem found in a statement's hints. Carries the offending word, never the statement. */
export interface HintProblem {
  readonly kind: HintProblemKind;
  /** The offending hint word (or words), as written. */
  readonly hint: string;
  readonly message: string;
}

/** Hints of one statement and what was wrong with them. */
export interface ParsedHints {
  readonly hints: RoutingHints;
  readonly problems: readonly HintProblem[];
}

const KNOWN = new Set<string>(HINT_NAMES);
/** An all-capitals word with an underscore (`FORCE_MASTER`, `USE_INDEX(`…): meant as a hint. */
const HINT_SHAPED = /^[A-Z][A-Z0-9]*_[A-Z0-9_]*(?:\(|$)/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Position after the statement's leading comments and blanks (where its first keyword starts). */
export function leadingCommentsEnd(sql: string): number {
  return scan(sql, undefined);
}

/**
 * Reads the routing hints in a statement's leading comments. Two forms are read:
 * - `/*+ FORCE_MASTER *\/ SELECT …` (the article's form): every word of the comment must be a hint;
 * - `/* FORCE_MASTER *\/ SELECT …`, which is what TypeORM writes for the `comment` find option
 *   and QueryBuilder `.comment()`: read as hints when its first word is a known hint or an
 *   all-capitals word with an underscore; any other comment (`/* list orders *\/`) is left alone.
 * Words may be separated by blanks or commas; several leading comments add up. Only comments
 * before the first keyword count: MySQL's own optimizer hints (`SELECT /*+ BKA(t) *\/`) and
 * executable comments (`/*!40101 … *\/`) are not routing hints.
 */
export function parseLeadingHints(sql: string): ParsedHints {
  const bodies: string[] = [];
  const problems: HintProblem[] = [];
  const end = scan(sql, (body) => bodies.push(body), problems);
  if (bodies.length === 0) return problems.length === 0 ? EMPTY : { hints: NO_HINTS, problems };
  const names = new Set<RoutingHintName>();
  for (const body of bodies) readComment(body, names, problems);
  if (names.has('FORCE_MASTER') && names.has('FORCE_SLAVE')) {
    problems.push({ kind: 'conflicting-hints', hint: 'FORCE_MASTER FORCE_SLAVE', message: 'FORCE_MASTER and FORCE_SLAVE together: the statement runs on the primary' });
    names.delete('FORCE_SLAVE');
  }
  if (names.has('MASTER_ONLY') && !startsTransaction(sql, end)) {
    problems.push({ kind: 'misplaced-hint', hint: 'MASTER_ONLY', message: 'MASTER_ONLY belongs on BEGIN / START TRANSACTION; on this statement it is read as FORCE_MASTER' });
    names.delete('MASTER_ONLY');
    names.add('FORCE_MASTER');
  }
  return { hints: hintSet(names), problems };
}

const EMPTY: ParsedHints = Object.freeze({ hints: NO_HINTS, problems: Object.freeze([]) });

function readComment(body: string, names: Set<RoutingHintName>, problems: HintProblem[]): void {
  const plus = body.startsWith('+');
  const words = (plus ? body.slice(1) : body).split(/[\s,]+/).filter((w) => w !== '');
  if (words.length === 0) return;
  const first = words[0]!;
  if (!plus && !KNOWN.has(first.toUpperCase()) && !HINT_SHAPED.test(first)) return;
  for (const word of words) {
    const upper = word.toUpperCase();
    if (KNOWN.has(upper)) {
      names.add(upper as RoutingHintName);
    } else if (IDENTIFIER.test(word)) {
      problems.push({ kind: 'unknown-hint', hint: word, message: `unknown routing hint ${word} (known: ${HINT_NAMES.join(', ')})` });
    } else {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(word)?.[0];
      const detail = name !== undefined && KNOWN.has(name.toUpperCase()) ? `${name.toUpperCase()} takes no arguments` : 'expected hint names separated by blanks or commas';
      problems.push({ kind: 'malformed-hint', hint: word, message: `malformed routing hint ${word}: ${detail}` });
    }
  }
}

/** Walks the leading blanks and comments; hands block-comment bodies to `onComment`. */
function scan(sql: string, onComment: ((body: string) => void) | undefined, problems?: HintProblem[]): number {
  const n = sql.length;
  let i = 0;
  while (i < n) {
    const c = sql.charCodeAt(i);
    if (c <= 32) {
      i++;
    } else if (c === 47 && sql.charCodeAt(i + 1) === 42) {
      const third = sql.charCodeAt(i + 2);
      // `/*!…*/` and `/*M!…*/` are MySQL / MariaDB executable comments: code, not comments.
      if (third === 33 || (third === 77 && sql.charCodeAt(i + 3) === 33)) return i;
      const close = sql.indexOf('*/', i + 2);
      if (close < 0) {
        problems?.push({ kind: 'malformed-hint', hint: '/*', message: 'unclosed comment before the statement' });
        return n;
      }
      onComment?.(sql.slice(i + 2, close));
      i = close + 2;
    } else if (c === 35 || (c === 45 && sql.charCodeAt(i + 1) === 45 && (i + 2 >= n || sql.charCodeAt(i + 2) <= 32))) {
      const eol = sql.indexOf('\n', i);
      i = eol < 0 ? n : eol + 1;
    } else {
      return i;
    }
  }
  return i;
}

function startsTransaction(sql: string, at: number): boolean {
  const word = /^[A-Za-z]+/.exec(sql.slice(at, at + 12))?.[0]?.toUpperCase();
  return word === 'BEGIN' || word === 'START';
}

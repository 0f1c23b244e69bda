/**
 * The ORs a route unit cuts down (`(a = ? AND b = ?) OR (a = ? AND b = ?) …` → the terms that
 * can be true on its shard; see `PrunableOr`): each dropped term is cut out with one `OR` next
 * to it, its parameters with it. The terms are found in the text by the lexer, once per text:
 * the OR must be in parentheses of its own (as TypeORM writes it), its separators the `OR`
 * keywords at that depth, one between each two terms, and each term's value slots inside its
 * own stretch. A text where that does not hold is sent with the OR whole (always right).
 */
import { lexedOf, TokenKind, type ParameterizedSql, type SqlDialect } from '../../parameterize/index.js';
import type { PrunableOr } from '../../plan/plan.js';
import type { RouteUnit } from '../../route/index.js';
import type { SqlToken } from '../sql-token.js';

/** Where one prunable OR is in the text: inside its parentheses, and its `OR` keywords. */
export interface OrSpan {
  /** Offset just past `(`. */
  readonly inner: number;
  /** Offset of `)`. */
  readonly close: number;
  readonly separators: readonly { readonly start: number; readonly end: number }[];
}

/** The span of each prunable OR in `p`'s text, undefined for one that cannot be found exactly. */
export function orSpansOf(p: ParameterizedSql, dialect: SqlDialect, ors: readonly PrunableOr[]): (OrSpan | undefined)[] {
  if (ors.length === 0) return [];
  const lexed = lexedOf(p, dialect);
  const depth = new Int32Array(lexed.count);
  let d = 0;
  for (let i = 0; i < lexed.count; i++) {
    if (lexed.kinds[i] === TokenKind.Close) d--;
    depth[i] = d;
    if (lexed.kinds[i] === TokenKind.Open) d++;
  }
  return ors.map((or) => spanOf(p, lexed, depth, or));
}

function spanOf(p: ParameterizedSql, lexed: ReturnType<typeof lexedOf>, depth: Int32Array, or: PrunableOr): OrSpan | undefined {
  const { slots, sql } = p;
  const n = or.terms.length;
  const firstSlot = slots[or.terms[0]!.firstSlot];
  const firstEnd = slots[or.terms[0]!.lastSlot];
  if (!firstSlot || !firstEnd || n < 2) return undefined;
  const isOr = (i: number) => lexed.kinds[i] === TokenKind.Word && lexed.ends[i]! - lexed.starts[i]! === 2 && sql.slice(lexed.starts[i], lexed.ends[i]).toUpperCase() === 'OR';
  const tokenAt = (offset: number) => {
    let lo = 0;
    let hi = lexed.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (lexed.starts[mid]! < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  // The first OR after the first term's last slot gives the depth of the separators.
  let sep = tokenAt(firstEnd.end);
  while (sep < lexed.count && !isOr(sep)) sep++;
  if (sep >= lexed.count) return undefined;
  const level = depth[sep]!;
  if (level < 1) return undefined;
  let open = tokenAt(firstSlot.start);
  while (open >= 0 && depth[open]! >= level) open--;
  let close = sep;
  while (close < lexed.count && depth[close]! >= level) close++;
  if (open < 0 || close >= lexed.count || lexed.kinds[open] !== TokenKind.Open || lexed.kinds[close] !== TokenKind.Close) return undefined;
  const separators: { start: number; end: number }[] = [];
  for (let i = open + 1; i < close; i++) if (depth[i] === level && isOr(i)) separators.push({ start: lexed.starts[i]!, end: lexed.ends[i]! });
  if (separators.length !== n - 1) return undefined;
  const inner = lexed.ends[open]!;
  const closeAt = lexed.starts[close]!;
  // Each term's slots lie between its separators.
  for (let t = 0; t < n; t++) {
    const from = t === 0 ? inner : separators[t - 1]!.end;
    const to = t === n - 1 ? closeAt : separators[t]!.start;
    const a = slots[or.terms[t]!.firstSlot];
    const b = slots[or.terms[t]!.lastSlot];
    if (!a || !b || a.start < from || b.end > to) return undefined;
  }
  return { inner, close: closeAt, separators };
}

/**
 * The tokens that cut the unit's ORs down to the terms it keeps: the dropped terms before the
 * first kept one go with the `OR` after them, every other dropped term with the `OR` before it.
 */
export function orTermTokens(spans: readonly (OrSpan | undefined)[], unit: RouteUnit): SqlToken[] {
  if (!unit.ors) return [];
  const tokens: SqlToken[] = [];
  for (const [index, kept] of unit.ors) {
    const span = spans[index];
    if (!span || kept.length === 0) continue;
    const n = span.separators.length + 1;
    const sepStart = (t: number) => span.separators[t - 1]!.start; // the OR before term t (t ≥ 1)
    const first = kept[0]!;
    if (first > 0) tokens.push({ start: span.inner, end: span.separators[first - 1]!.end, text: '' });
    for (let k = 0; k < kept.length; k++) {
      const from = kept[k]! + 1;
      const next = k + 1 < kept.length ? kept[k + 1]! : n;
      if (from >= next) continue;
      tokens.push({ start: sepStart(from), end: next < n ? sepStart(next) : span.close, text: '' });
    }
  }
  return tokens;
}

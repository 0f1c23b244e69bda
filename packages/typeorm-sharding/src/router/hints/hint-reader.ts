import { NO_HINTS, type RoutingHints } from './hint.js';
import { leadingCommentsEnd, parseLeadingHints, type HintProblem } from './parse-hints.js';

/**
 * Hints of statement texts, remembered per distinct leading comment: the plan-cache key drops
 * comments, so the hints are read from the text, and TypeORM writes the same comment for
 * every call of one `find` / QueryBuilder site. Problems are reported once per distinct
 * comment (once per shape), never silently dropped.
 */
export class HintReader {
  private readonly known = new Map<string, RoutingHints>();

  constructor(
    private readonly report: (problem: HintProblem) => void,
    private readonly capacity = 1000,
  ) {}

  /** The hints of `sql` (NO_HINTS at once for a statement that starts with a keyword). */
  hintsOf(sql: string): RoutingHints {
    const c = sql.charCodeAt(0);
    // Fast path: neither a blank nor the start of a comment (`/`, `-`, `#`).
    if (c > 32 && c !== 47 && c !== 45 && c !== 35) return NO_HINTS;
    const end = leadingCommentsEnd(sql);
    if (end === 0) return NO_HINTS;
    // The first keyword matters too (MASTER_ONLY is only at home on BEGIN).
    const key = sql.slice(0, end + 5);
    const found = this.known.get(key);
    if (found !== undefined) return found;
    const parsed = parseLeadingHints(sql);
    if (this.known.size >= this.capacity) this.known.clear();
    this.known.set(key, parsed.hints);
    for (const problem of parsed.problems) this.report(problem);
    return parsed.hints;
  }
}

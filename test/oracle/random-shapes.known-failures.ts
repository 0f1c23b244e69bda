import type { ShapeCase } from '../support/shapes/ast.js';
import type { Outcome } from '../support/shapes/harness.js';

// Failures of the whole-grammar classes that the planner does not yet refuse (issue 14, items
// 1–2: the closed world): each entry names the construct, the issue item, and the shrunk repro
// the survey found (random-shapes.FINDINGS.md, section "Whole grammar"). A failing case matches
// an entry only when its query has every tag of the entry and the failure is of a listed kind;
// such a case is counted (the summary prints how many) and the property goes on. An entry
// whose construct is fixed (or refused) stops matching anything: delete it then. Anything not
// listed fails CI as before.

export interface KnownFailure {
  readonly id: string;
  /** Issue 14 item. */
  readonly issue: string;
  readonly backends: readonly ('sqlite' | 'mariadb')[];
  /** The case's feature tags must include all of these. */
  readonly tags: readonly string[];
  readonly kinds: readonly Outcome['kind'][];
  /** The error template must match (wrong-error), when given. */
  readonly error?: RegExp;
  /** The shrunk repro. */
  readonly repro: string;
}

export const KNOWN_FAILURES: readonly KnownFailure[] = [
  // Before h/closed was merged the list also held a CTE over a sharded table run on the default
  // shard only, its body's table names under a layout, windows in derived tables computed per
  // shard, SQL_CALC_FOUND_ROWS / FOUND_ROWS() and user variables: all refused now (FINDINGS P–W);
  // then an inlined CTE's unaliased outer items not found in the text (S) and a global aggregate in
  // an inlined CTE routed to no shard answering no row (T): both fixed.
];

/** The known failure that explains `o` for case `c` on `backend`, if any. */
export function knownFailureOf(backend: string, c: ShapeCase, o: Outcome): KnownFailure | undefined {
  return KNOWN_FAILURES.find(
    (k) =>
      (k.backends as readonly string[]).includes(backend) &&
      k.kinds.includes(o.kind) &&
      k.tags.every((t) => c.tags.includes(t)) &&
      (k.error === undefined || k.error.test(o.detail)),
  );
}

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
  {
    id: 'cte-over-sharded',
    issue: '14.1/14.2: a CTE over a sharded table runs on the default shard only',
    backends: ['sqlite', 'mariadb'],
    tags: ['cte:sharded'],
    kinds: ['wrong-answer'],
    repro: 'WITH c1 AS (SELECT f.id AS v1 FROM shape_facts f) SELECT d.v1 FROM c1 d  -- plain 180 rows, sharded the rows of s0',
  },
  {
    id: 'cte-layout-table-names',
    issue: '14.1: the CTE body is not rewritten (table-per-shard layout: its physical table names)',
    backends: ['sqlite', 'mariadb'],
    tags: ['cte:sharded'],
    kinds: ['wrong-error'],
    error: /no such table|doesn't exist/,
    repro: "WITH c1 AS (SELECT l.id AS v1 FROM shape_lines l) SELECT d.v1 FROM c1 d  -- layout variant: ShardQueryError: no such table: shape_lines",
  },
  {
    id: 'window-in-derived',
    issue: '14.2: a window function inside a derived table is computed per shard',
    backends: ['sqlite', 'mariadb'],
    tags: ['window:in-derived'],
    kinds: ['wrong-answer'],
    repro: 'SELECT d.id, d.p, d.w FROM (SELECT f.id AS id, f.grp AS p, COUNT(f.qty) OVER () AS w FROM shape_facts f) d  -- w is each shard\'s count',
  },
  {
    id: 'calc-found-rows-in-union',
    issue: '14.1: SQL_CALC_FOUND_ROWS reaches the server inside a coalesced UNION ALL branch',
    backends: ['mariadb'],
    tags: ['calc-found-rows'],
    kinds: ['wrong-error'],
    error: /SQL_CALC_FOUND_ROWS/,
    repro: "SELECT SQL_CALC_FOUND_ROWS f.id FROM shape_facts f; SELECT FOUND_ROWS() AS n  -- ShardQueryError: Incorrect usage/placement of 'SQL_CALC_FOUND_ROWS' (on shard s0)",
  },
  {
    id: 'found-rows-of-one-shard',
    issue: '14.1: FOUND_ROWS() answers for the one shard connection it reaches',
    backends: ['mariadb'],
    tags: ['calc-found-rows'],
    kinds: ['wrong-answer'],
    repro: "SELECT SQL_CALC_FOUND_ROWS f.flags AS v1 FROM shape_facts f WHERE f.day >= '2024-02-29'; SELECT FOUND_ROWS() AS n  -- plain 58, sharded 17 (or 5: whichever shard's count)",
  },
  {
    id: 'user-variable-read',
    issue: "14.1: a user variable set by SET (or by `@m := …`) lives on one shard's connection; others read NULL or a stale value",
    backends: ['mariadb'],
    tags: ['var:read'],
    kinds: ['wrong-answer'],
    repro: 'SET @v = 1; SELECT f.flags FROM shape_facts f WHERE f.qty = @v  -- shards whose connection has no @v (or an old one) answer other rows; varies with the pool',
  },
  {
    id: 'user-variable-assigned-aggregate',
    issue: "14.1: `SELECT @m := MAX(…)` assigns each shard's partial on its own connection; `SELECT @m` reads one of them",
    backends: ['mariadb'],
    tags: ['var:assign'],
    kinds: ['wrong-answer', 'wrong-error'],
    repro: 'SELECT (@m := MAX(f.qty)) AS m FROM shape_facts f; SELECT @m AS m',
  },
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

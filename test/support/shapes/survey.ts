import fc from 'fast-check';
import type { ShapeCase } from './ast.js';
import { sessionText, type PrintedCase } from './arbitrary.js';
import { isFailure, type Outcome } from './harness.js';

// Survey mode (SHAPES_SURVEY=1): instead of stopping at the first failure, find one shrunk
// example of every distinct failure. Each round runs fast-check with a property that treats
// every failure already explained as a pass; the first unexplained failure is shrunk (to a
// query that still fails in an unexplained way), recorded, and explains what follows.

/** What makes two failures "the same": the outcome, the error, and the features of the query. */
export interface Signature {
  readonly kind: Outcome['kind'];
  readonly error: string | undefined;
  readonly tags: readonly string[];
}

export interface Finding {
  readonly signature: Signature;
  readonly c: ShapeCase;
  readonly sql: string;
  readonly params: readonly unknown[];
  readonly outcome: Outcome;
}

/**
 * Tags that rarely decide whether a merge is right (which scalar function, which plain
 * aggregate, how an ORDER BY term is spelled, a key condition that still prunes): left out
 * of signatures, so that one cause met with different incidental features is one finding.
 */
const INCIDENTAL = /^(fn:|expr:|where:(null-test|or|not|key-eq|key-in)$|order:(desc|position|alias|expr)$|agg:(COUNT\(\*\)|COUNT|SUM|MIN|MAX)$)/;

function signatureOf(c: ShapeCase, o: Outcome): Signature {
  return { kind: o.kind, error: o.kind === 'wrong-answer' ? undefined : o.errorTemplate, tags: c.tags.filter((t) => !INCIDENTAL.test(t)) };
}

/** A known signature explains a failure of the same kind and error whose query has all its features (and maybe more). */
function explains(known: Signature, s: Signature): boolean {
  return known.kind === s.kind && known.error === s.error && known.tags.every((t) => s.tags.includes(t));
}

/**
 * Finds the distinct failures of one arbitrary: at most `rounds` findings, each round up to
 * `numRuns` queries, each failure shrunk with at most `shrinkBudget` runs.
 */
export async function survey(
  arbitrary: fc.Arbitrary<PrintedCase>,
  run: (p: PrintedCase) => Promise<Outcome>,
  options: { readonly seed: number; readonly numRuns: number; readonly rounds: number; readonly shrinkBudget: number },
): Promise<Finding[]> {
  const known: Signature[] = [];
  const findings: Finding[] = [];
  for (let round = 0; round < options.rounds; round++) {
    let shrinks = 0;
    let failing = false;
    const details = await fc.check(
      fc.asyncProperty(arbitrary, async (p) => {
        if (failing && ++shrinks > options.shrinkBudget) return true;
        const o = await run(p);
        if (!isFailure(o) && o.kind !== 'invalid') return true;
        if (known.some((k) => explains(k, signatureOf(p.c, o)))) return true;
        failing = true;
        return false;
      }),
      { numRuns: options.numRuns, seed: options.seed + round * 7919 },
    );
    if (!details.failed || !details.counterexample) break;
    const [p] = details.counterexample;
    const outcome = await run(p);
    const signature = signatureOf(p.c, outcome);
    known.push(signature);
    findings.push({ signature, c: p.c, sql: sessionText(p.c, p.q.sql), params: p.q.params, outcome });
  }
  return findings;
}

/** The findings as Markdown. */
export function findingsText(backend: string, findings: readonly Finding[]): string {
  return findings
    .map((f) =>
      [
        `### [${backend}] ${f.c.shapeClass}: ${f.outcome.kind}${f.signature.error ? ` — ${f.signature.error}` : ''}`,
        '```sql',
        f.sql,
        '```',
        `params: ${JSON.stringify(f.params)}; ${f.c.ordered ? 'compared in order' : 'compared as a multiset'}; tags: ${f.c.tags.join(' ')}`,
        '',
        `${f.outcome.detail}`,
        ...(f.outcome.plain ? ['', `plain: ${f.outcome.plain}`] : []),
        ...(f.outcome.sharded ? ['', `sharded: ${f.outcome.sharded}`] : []),
        '',
      ].join('\n'),
    )
    .join('\n');
}

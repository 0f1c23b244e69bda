/**
 * UNION / EXCEPT / INTERSECT of rows that each SELECT of a compound returned, as one database
 * combines them: `ALL` keeps duplicates (multiset semantics: `EXCEPT ALL` removes one left row
 * per matching right row), without it the result is a set and the first of equal rows is kept.
 * Rows are equal when their keys are (the caller builds keys with the database's equality:
 * collations, server-computed weights).
 */
import type { Row } from './row.js';

/** One set operator of a compound SELECT. */
export interface SetOperation {
  readonly op: 'UNION' | 'EXCEPT' | 'INTERSECT';
  readonly all: boolean;
}

/**
 * How operators group: MySQL/MariaDB bind INTERSECT tighter than UNION and EXCEPT
 * (`a UNION b INTERSECT c` is `a UNION (b INTERSECT c)`); SQLite reads them left to right.
 */
export type SetPrecedence = 'intersect-first' | 'left-to-right';

/**
 * Combines `branches[0] op[0] branches[1] op[1] …`. `keyOf(i)` is the row key under which
 * operator i compares rows (SQLite compares under a collation that may change from one
 * operator to the next).
 */
export function combineBranches(
  branches: readonly (readonly Row[])[],
  operators: readonly SetOperation[],
  precedence: SetPrecedence,
  keyOf: (operator: number) => (row: Row) => string,
): Row[] {
  if (branches.length !== operators.length + 1) throw new RangeError(`combineBranches: ${branches.length} branches for ${operators.length} operators`);
  const apply = (left: readonly Row[], k: number): Row[] => setOperation(left, branches[k + 1]!, operators[k]!, keyOf(k));
  if (precedence === 'left-to-right') {
    let rows: readonly Row[] = branches[0]!;
    operators.forEach((_, k) => (rows = apply(rows, k)));
    return [...rows];
  }
  // INTERSECT first: runs of INTERSECT become terms, then the terms are combined left to right.
  const terms: { rows: Row[]; before: number | undefined }[] = [{ rows: [...branches[0]!], before: undefined }];
  operators.forEach((operator, k) => {
    if (operator.op === 'INTERSECT') terms[terms.length - 1]!.rows = apply(terms[terms.length - 1]!.rows, k);
    else terms.push({ rows: [...branches[k + 1]!], before: k });
  });
  return terms.slice(1).reduce((rows, term) => setOperation(rows, term.rows, operators[term.before!]!, keyOf(term.before!)), terms[0]!.rows);
}

/** `left op right`. */
export function setOperation(left: readonly Row[], right: readonly Row[], operation: SetOperation, keyOf: (row: Row) => string): Row[] {
  const { op, all } = operation;
  if (op === 'UNION') return all ? [...left, ...right] : distinct([...left, ...right], keyOf);
  if (all) {
    const counts = new Map<string, number>();
    for (const row of right) counts.set(keyOf(row), (counts.get(keyOf(row)) ?? 0) + 1);
    // EXCEPT ALL drops one left row per equal right row; INTERSECT ALL keeps one per equal right row.
    return left.filter((row) => {
      const key = keyOf(row);
      const matches = counts.get(key) ?? 0;
      if (matches > 0) counts.set(key, matches - 1);
      return op === 'INTERSECT' ? matches > 0 : matches === 0;
    });
  }
  const present = new Set(right.map(keyOf));
  return distinct(left, keyOf).filter((row) => present.has(keyOf(row)) === (op === 'INTERSECT'));
}

function distinct(rows: readonly Row[], keyOf: (row: Row) => string): Row[] {
  const seen = new Set<string>();
  return rows.filter((row) => {
    const key = keyOf(row);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

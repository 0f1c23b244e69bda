/**
 * Proves a capped shallow page (see `plan/select/page-window.ts`'s `cappedInputRows`): every
 * shard was asked for at most `cap` rows of its first `offset + count`, and each statement —
 * a server's UNION ALL of its shards' branches, sorted and cut to `offset + count` by the server,
 * or one shard's statement alone — returned the first rows of what its branches sent. Its rows
 * tag the branch they came from. A branch with fewer than `cap` rows among them either sent
 * fewer than `cap` (it holds no more) or had its `cap`-th row cut by the server's LIMIT: then all
 * its unsent rows sort at or after that row, so after every row kept, and the statement's rows
 * are the first `offset + count` rows of all its shards' rows, as the plain path reads them. A
 * branch with `cap` rows among them may hold more that belong there: the page is unproven.
 * Pure: rows in, a verdict out.
 */
import type { Row } from './row.js';

/** True when no branch of any input has `cap` rows among the input's rows (by the `tag` column). */
export function cappedInputsProven(inputs: readonly (readonly Row[])[], cap: number, tag: string): boolean {
  const counts = new Map<unknown, number>();
  for (const rows of inputs) {
    // A branch's rows are in no other input (each shard is in one statement).
    for (const row of rows) {
      const branch = row[tag];
      if (branch === undefined) return false;
      const n = (counts.get(branch) ?? 0) + 1;
      if (n >= cap) return false;
      counts.set(branch, n);
    }
  }
  return true;
}

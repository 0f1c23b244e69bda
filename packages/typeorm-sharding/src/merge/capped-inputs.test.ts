import { describe, expect, it } from 'vitest';
import { cappedInputsProven } from './capped-inputs.js';

const TAG = '__shard_branch';
/** Rows tagged with the branches given, in order (the rest of a row does not matter to the proof). */
const rows = (...branches: number[]) => branches.map((b, i) => ({ id: i, [TAG]: b }));

describe('cappedInputsProven', () => {
  it('proves a page where every branch has fewer rows than its cap among its input\'s rows', () => {
    expect(cappedInputsProven([rows(0, 1, 2, 0, 1, 3), rows(4, 5, 4)], 3, TAG)).toBe(true);
    expect(cappedInputsProven([rows(), rows(7)], 2, TAG)).toBe(true);
  });

  it('refuses a page where one branch has its cap among the rows: it may hold more that belong there', () => {
    expect(cappedInputsProven([rows(0, 1, 0, 2, 0)], 3, TAG)).toBe(false);
    // Counted per branch across inputs too (a branch is in one input, but the count is not reset).
    expect(cappedInputsProven([rows(1, 2), rows(3, 3, 3)], 3, TAG)).toBe(false);
  });

  it('refuses rows without the tag (closed world: an untagged row proves nothing)', () => {
    expect(cappedInputsProven([[{ id: 1 }]], 5, TAG)).toBe(false);
  });
});

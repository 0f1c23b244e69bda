import { describe, expect, it } from 'vitest';
import { coalesceRead, type MergeInputs } from './coalesce-read.js';
import type { PhysicalStatement } from './physical-statement.js';

const statements: PhysicalStatement[] = [0, 1, 2].map((shard) => ({ shard, sql: `SELECT a FROM \`d${shard}\`.t ORDER BY a LIMIT 5 OFFSET 0`, parameters: [], qualified: true }));
const oneServer = { serverOf: () => 'A', maxBranches: 16 };
const read = (inputs: Partial<MergeInputs>) => coalesceRead(statements, { order: undefined, concatenates: true, rowsPerInput: undefined, ...inputs }, oneServer);

describe('coalesceRead', () => {
  it('a concatenating page: one union cut to the rows the merge can use', () => {
    const out = read({ rowsPerInput: 5n });
    expect(out.statements).toHaveLength(1);
    expect(out.statements[0]!.sql.endsWith(') LIMIT 5')).toBe(true);
    expect(out.unsortedInputs).toBe(false);
  });

  it('sortable keys: the union is sorted by them and cut', () => {
    const out = read({ order: [{ column: 'a', direction: 'DESC', type: 'numeric' }], concatenates: false, rowsPerInput: 5n });
    expect(out.statements[0]!.sql.endsWith(') ORDER BY `a` DESC LIMIT 5')).toBe(true);
    expect(out.unsortedInputs).toBe(false);
  });

  it('text weights the server cannot sort as the merge does: unsorted, uncut, and the merge told so', () => {
    const out = read({ order: [{ column: 'a', direction: 'ASC', type: 'mysql-weight' }], concatenates: false, rowsPerInput: 5n });
    expect(out.statements[0]!.sql.endsWith('LIMIT 5 OFFSET 0)')).toBe(true);
    expect(out.unsortedInputs).toBe(true);
  });

  it('a merge that groups without an input order gets every row of each input', () => {
    const out = read({ concatenates: false, rowsPerInput: 5n });
    expect(out.statements[0]!.sql.endsWith('LIMIT 5 OFFSET 0)')).toBe(true);
  });
});

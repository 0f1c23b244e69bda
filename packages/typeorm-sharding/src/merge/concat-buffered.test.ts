import { describe, expect, it } from 'vitest';
import { buildMerge } from './build-merge.js';
import { collectRows } from './collect-rows.js';
import { concatBuffered, isPlainConcat, PLAIN_CONCAT_CLAUSES } from './concat-buffered.js';
import type { MergeSpec, MergeSpecClauses } from './merge-spec.js';
import type { Row } from './row.js';
import { fakeInput } from './testing/fake-input.js';

/** A value of each clause that asks the merge for more than a concatenation. */
const SET: { readonly [K in keyof MergeSpecClauses]-?: MergeSpecClauses[K] } = {
  groupBy: [{ column: 'a' }],
  aggregates: [{ fn: 'COUNT', column: 'n', distinct: false } as never],
  columns: ['a'],
  bigintForm: 'number',
  compute: [{ column: 'c', evaluate: () => 1, label: 'c' }],
  having: { predicate: () => true },
  listedOrder: { columns: ['a'], tuples: [[1]] },
  distinct: {},
  limit: { offset: 0, count: 1 },
  strip: ['a'],
  rename: [{ from: 'a', to: 'b' }],
  integersAsNumbers: true,
};

describe('concatBuffered', () => {
  const parts: Row[][] = [[{ id: 3 }, { id: 1 }], [], [{ id: 2 }]];

  it('gives the rows the concat merge gives, in input order', async () => {
    const spec: MergeSpec = { kind: 'concat' };
    const merged = await collectRows(buildMerge(spec, parts.map((p) => fakeInput(p))));
    expect(concatBuffered(spec, parts)).toEqual(merged);
    expect(concatBuffered(spec, parts)!.map((r) => r['id'])).toEqual([3, 1, 2]);
  });

  it('copies a single result (the caller may hold on to the driver\'s array)', () => {
    const only = [{ id: 1 }];
    const rows = concatBuffered({ kind: 'concat', strip: [], rename: [], integersAsNumbers: false }, [only]);
    expect(rows).toEqual(only);
    expect(rows).not.toBe(only);
  });

  it('declines an ordered merge, even over unsorted inputs', () => {
    expect(concatBuffered({ kind: 'ordered', orderBy: [{ column: 'id', direction: 'ASC' }] as never }, parts)).toBeUndefined();
    expect(concatBuffered({ kind: 'ordered', orderBy: [{ column: 'id', direction: 'ASC' }] as never, unsortedInputs: true }, parts)).toBeUndefined();
  });

  // Every clause the table says the check reads: set alone, the merge is no longer plain.
  for (const clause of Object.keys(PLAIN_CONCAT_CLAUSES) as (keyof MergeSpecClauses)[]) {
    const read = PLAIN_CONCAT_CLAUSES[clause];
    it(`${read ? 'declines' : 'ignores'} a concat with ${clause}`, () => {
      const spec = { kind: 'concat', [clause]: SET[clause] } as MergeSpec;
      expect(isPlainConcat(spec)).toBe(!read);
      expect(concatBuffered(spec, parts) === undefined).toBe(read);
    });
  }
});

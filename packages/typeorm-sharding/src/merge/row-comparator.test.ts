import { describe, expect, it } from 'vitest';
import { createRowComparator, describeSortKeys, type SortKey } from './row-comparator.js';
import { show } from './testing/fake-input.js';

describe('createRowComparator', () => {
  const keys: readonly SortKey[] = [
    { column: 'score', direction: 'DESC', type: 'numeric' },
    { column: 'name', direction: 'ASC', type: 'string', collation: 'case-insensitive' },
    { column: 'id', direction: 'ASC', type: 'numeric' },
  ];

  it('compares keys in turn, DESC reversed, NULLs last when descending', () => {
    const rows = [
      { score: '10.0', name: 'b', id: 1 },
      { score: null, name: 'a', id: 2 },
      { score: '9.5', name: 'a', id: 3 },
      { score: '10', name: 'A', id: 4 },
      { score: '10.00', name: 'a', id: 0 },
    ];
    expect(rows.sort(createRowComparator(keys)).map(show)).toEqual([
      'score="10.00" name="a" id=0',
      'score="10" name="A" id=4',
      'score="10.0" name="b" id=1',
      'score="9.5" name="a" id=3',
      'score=null name="a" id=2',
    ]);
  });

  it('ties are 0', () => {
    expect(createRowComparator(keys)({ score: 1, name: 'x', id: 1 }, { score: '1.0', name: 'X', id: 1n })).toBe(0);
  });

  it('throws when a sort column is missing from a row', () => {
    expect(() => createRowComparator(keys)({ score: 1, name: 'x' }, { score: 1, name: 'x', id: 1 })).toThrow(/"id" is not in the row/);
  });

  it('describes keys', () => {
    expect(describeSortKeys(keys)).toBe('score DESC, name ASC, id ASC');
  });
});

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

  it('NULLS FIRST / NULLS LAST hold whatever the direction (DESC does not flip them)', () => {
    const rows = () => [{ v: 2 }, { v: null }, { v: 3 }, { v: 1 }];
    const order = (direction: 'ASC' | 'DESC', nulls: 'first' | 'last') => rows().sort(createRowComparator([{ column: 'v', direction, type: 'numeric', nulls }])).map((r) => r.v);
    expect(order('DESC', 'first')).toEqual([null, 3, 2, 1]);
    expect(order('DESC', 'last')).toEqual([3, 2, 1, null]);
    expect(order('ASC', 'first')).toEqual([null, 1, 2, 3]);
    expect(order('ASC', 'last')).toEqual([1, 2, 3, null]);
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

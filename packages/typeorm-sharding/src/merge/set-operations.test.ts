import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { combineBranches, setOperation, type SetOperation } from './set-operations.js';
import type { Row } from './row.js';

const rows = (...values: number[]): Row[] => values.map((v) => ({ v }));
const values = (out: readonly Row[]) => out.map((r) => r.v);
const byValue = (row: Row) => String(row.v);
const op = (text: string): SetOperation => {
  const [name, all] = text.split(' ');
  return { op: name as SetOperation['op'], all: all === 'ALL' };
};

describe('setOperation', () => {
  const left = rows(1, 1, 2, 2, 2, 3);
  const right = rows(2, 3, 3, 4);
  it.each([
    ['UNION ALL', [1, 1, 2, 2, 2, 3, 2, 3, 3, 4]],
    ['UNION', [1, 2, 3, 4]],
    ['EXCEPT', [1]],
    ['EXCEPT ALL', [1, 1, 2, 2]],
    ['INTERSECT', [2, 3]],
    ['INTERSECT ALL', [2, 3]],
  ])('%s', (operator, expected) => {
    expect(values(setOperation(left, right, op(operator), byValue))).toEqual(expected);
  });

  it('keeps the first of equal rows (the left one) under the key', () => {
    const key = (row: Row) => String(row.v).toLowerCase();
    expect(setOperation([{ v: 'a' }], [{ v: 'A' }, { v: 'b' }], op('UNION'), key)).toEqual([{ v: 'a' }, { v: 'b' }]);
    expect(setOperation([{ v: 'A' }, { v: 'a' }], [{ v: 'a' }], op('INTERSECT'), key)).toEqual([{ v: 'A' }]);
  });

  it('agrees with a multiset model on random inputs', () => {
    const bag = fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 12 });
    fc.assert(
      fc.property(bag, bag, fc.constantFrom('UNION ALL', 'UNION', 'EXCEPT', 'EXCEPT ALL', 'INTERSECT', 'INTERSECT ALL'), (a, b, operator) => {
        const count = (list: number[], v: number) => list.filter((x) => x === v).length;
        const out = values(setOperation(rows(...a), rows(...b), op(operator), byValue)) as number[];
        for (let v = 0; v <= 5; v++) {
          const [x, y] = [count(a, v), count(b, v)];
          const expected = {
            'UNION ALL': x + y,
            UNION: Math.min(1, x + y),
            EXCEPT: x > 0 && y === 0 ? 1 : 0,
            'EXCEPT ALL': Math.max(0, x - y),
            INTERSECT: x > 0 && y > 0 ? 1 : 0,
            'INTERSECT ALL': Math.min(x, y),
          }[operator]!;
          expect(count(out, v)).toBe(expected);
        }
      }),
    );
  });
});

describe('combineBranches', () => {
  const branches = [rows(1), rows(2), rows(2), rows(3)];
  it('MySQL binds INTERSECT before UNION / EXCEPT', () => {
    // 1 UNION (2 INTERSECT 2): [1, 2]; left to right ((1 UNION 2) INTERSECT 2): [2]
    const three = branches.slice(0, 3);
    expect(values(combineBranches(three, [op('UNION'), op('INTERSECT')], 'intersect-first', () => byValue))).toEqual([1, 2]);
    expect(values(combineBranches(three, [op('UNION'), op('INTERSECT')], 'left-to-right', () => byValue))).toEqual([2]);
  });

  it('a DISTINCT union removes the duplicates of the ALL unions before it, not after it', () => {
    const parts = [rows(1), rows(1), rows(2), rows(2)];
    expect(values(combineBranches(parts, [op('UNION ALL'), op('UNION'), op('UNION ALL')], 'intersect-first', () => byValue))).toEqual([1, 2, 2]);
  });

  it('compares each operator under its own key', () => {
    const parts = [[{ v: 'a' }], [{ v: 'A' }], [{ v: 'b' }]];
    const keys = [(r: Row) => String(r.v), (r: Row) => String(r.v).toLowerCase()];
    // The first UNION keeps 'a' and 'A' apart, the second sees them as one value.
    expect(values(combineBranches(parts, [op('UNION'), op('UNION')], 'left-to-right', (i) => keys[i]!))).toEqual(['a', 'b']);
    expect(values(combineBranches(parts, [op('UNION'), op('UNION ALL')], 'left-to-right', (i) => keys[i]!))).toEqual(['a', 'A', 'b']);
  });

  it('runs a chain of INTERSECTs, then the rest', () => {
    const parts = [rows(1, 2, 3), rows(2, 3), rows(3, 4), rows(9)];
    expect(values(combineBranches(parts, [op('INTERSECT'), op('INTERSECT'), op('UNION ALL')], 'intersect-first', () => byValue))).toEqual([3, 9]);
    expect(values(combineBranches([rows(5), ...parts.slice(0, 3)], [op('EXCEPT'), op('INTERSECT'), op('INTERSECT')], 'intersect-first', () => byValue))).toEqual([5]);
  });
});

import { describe, expect, it } from 'vitest';
import type { MergeSpec } from '../../merge/index.js';
import { cappedInputRows, pageWindowOf, windowMargin } from './page-window.js';

const ORDERED: MergeSpec = { kind: 'ordered', orderBy: [{ column: 'createdAt', direction: 'DESC', type: 'date' }, { column: 'id', direction: 'DESC', type: 'numeric' }] };
const page = (offset: bigint, count: bigint | undefined, pushed = true) => ({ offset, count, pushed });

describe('pageWindowOf', () => {
  it('sends each of 16 inputs about offset/16 ± 2·√offset rows for OFFSET 10,000', () => {
    const margin = windowMargin(10_000, 20);
    expect(margin).toBe(201);
    expect(pageWindowOf(page(10_000n, 20n), true, ORDERED, 16)).toEqual({ start: 625 - 201, rows: 201 + 20 + 201, boundary: 625, offset: 10_000, count: 20 });
  });

  it('starts from row 0 when the margin reaches back that far', () => {
    expect(pageWindowOf(page(1000n, 20n), true, ORDERED, 16)).toEqual({ start: 0, rows: 62 + 20 + 64, boundary: 62, offset: 1000, count: 20 });
  });

  it('keeps the plain path where the window would not halve the rows', () => {
    expect(pageWindowOf(page(0n, 20n), true, ORDERED, 16)).toBeUndefined();
    // Two inputs at OFFSET 100: 28 rows of margin before position 50, 20, 22 after: 64 > 120 / 2.
    expect(pageWindowOf(page(100n, 20n), true, ORDERED, 2)).toBeUndefined();
  });

  it('keeps the plain path for pages it cannot cut: no count, no pushed limit, no offset slot, one input', () => {
    expect(pageWindowOf(page(10_000n, undefined), true, ORDERED, 16)).toBeUndefined();
    expect(pageWindowOf(page(10_000n, 20n, false), true, ORDERED, 16)).toBeUndefined();
    expect(pageWindowOf(page(10_000n, 20n), false, ORDERED, 16)).toBeUndefined();
    expect(pageWindowOf(page(10_000n, 20n), true, ORDERED, 1)).toBeUndefined();
    expect(pageWindowOf(undefined, true, ORDERED, 16)).toBeUndefined();
    expect(pageWindowOf(page(2n ** 41n, 20n), true, ORDERED, 16)).toBeUndefined();
  });

  it('keeps the plain path for merges that change which rows exist (grouping, DISTINCT, HAVING, no ORDER BY)', () => {
    const deep = page(10_000n, 20n);
    expect(pageWindowOf(deep, true, { kind: 'concat' }, 16)).toBeUndefined();
    expect(pageWindowOf(deep, true, { ...ORDERED, unsortedInputs: true }, 16)).toBeUndefined();
    expect(pageWindowOf(deep, true, { ...ORDERED, distinct: {} }, 16)).toBeUndefined();
    expect(pageWindowOf(deep, true, { ...ORDERED, groupBy: [{ column: 'id' }] }, 16)).toBeUndefined();
    expect(pageWindowOf(deep, true, { ...ORDERED, having: { predicate: () => true } }, 16)).toBeUndefined();
    expect(pageWindowOf(deep, true, { ...ORDERED, compute: [{ column: 'x', evaluate: () => 1, label: 'x' }] }, 16)).toBeUndefined();
  });
});

describe('cappedInputRows', () => {
  it('asks each of 16 inputs for 7 of a first page of 20: its share, 1.25, plus 3·√share + 2', () => {
    expect(cappedInputRows(page(0n, 20n), ORDERED, 16)).toBe(7);
    // OFFSET 100, page 20 over 16: share 7.5 → 7.5 + 8.2 + 2.
    expect(cappedInputRows(page(100n, 20n), ORDERED, 16)).toBe(18);
    expect(cappedInputRows(page(0n, 20n), ORDERED, 8)).toBe(10);
  });

  it('keeps the plain path where the cap would not halve the rows (few inputs, small pages)', () => {
    expect(cappedInputRows(page(0n, 20n), ORDERED, 4)).toBeUndefined();
    expect(cappedInputRows(page(0n, 1n), ORDERED, 16)).toBeUndefined();
    expect(cappedInputRows(page(0n, 20n), ORDERED, 1)).toBeUndefined();
  });

  it('keeps the plain path for pages it cannot prove: no count, no pushed limit, an empty page, merges that change which rows exist', () => {
    expect(cappedInputRows(undefined, ORDERED, 16)).toBeUndefined();
    expect(cappedInputRows(page(0n, undefined), ORDERED, 16)).toBeUndefined();
    expect(cappedInputRows(page(0n, 20n, false), ORDERED, 16)).toBeUndefined();
    expect(cappedInputRows(page(0n, 0n), ORDERED, 16)).toBeUndefined();
    expect(cappedInputRows(page(0n, 20n), { kind: 'concat' }, 16)).toBeUndefined();
    expect(cappedInputRows(page(0n, 20n), { ...ORDERED, unsortedInputs: true }, 16)).toBeUndefined();
    expect(cappedInputRows(page(0n, 20n), { ...ORDERED, distinct: {} }, 16)).toBeUndefined();
    expect(cappedInputRows(page(0n, 20n), { ...ORDERED, groupBy: [{ column: 'id' }] }, 16)).toBeUndefined();
  });
});

import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { inStartOrder, spliceSql } from './splice.js';
import { ShardingInternalError } from '../errors/index.js';

describe('spliceSql', () => {
  const sql = 'SELECT a FROM t WHERE id IN (1, 2, 3) LIMIT 20';

  it('returns the text unchanged without edits', () => {
    expect(spliceSql(sql, [])).toBe(sql);
  });

  it('applies edits given in any order', () => {
    const edits = [
      { start: 44, end: 46, text: '40' },
      { start: 28, end: 37, text: '(2)' },
      { start: 14, end: 15, text: '`t_1`' },
    ];
    const expected = 'SELECT a FROM `t_1` WHERE id IN (2) LIMIT 40';
    expect(spliceSql(sql, edits)).toBe(expected);
    expect(spliceSql(sql, [...edits].reverse())).toBe(expected);
  });

  it('inserts at a point, keeping the given order of inserts at the same point', () => {
    expect(spliceSql('ab', [{ start: 1, end: 1, text: 'X' }, { start: 1, end: 1, text: 'Y' }, { start: 2, end: 2, text: '!' }])).toBe('aXYb!');
    expect(spliceSql('ab', [{ start: 0, end: 1, text: '' }, { start: 1, end: 2, text: 'c' }])).toBe('c');
  });

  it.each([
    [[{ start: 2, end: 5, text: '' }, { start: 4, end: 6, text: '' }]],
    [[{ start: 3, end: 2, text: '' }]],
    [[{ start: 0, end: 99, text: '' }]],
  ])('rejects overlapping or out-of-range edits %j', (edits) => {
    expect(() => spliceSql(sql, edits)).toThrow(ShardingInternalError);
  });

  it('matches a naive right-to-left splice', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }),
        fc.array(fc.tuple(fc.nat(4), fc.nat(3), fc.string({ maxLength: 3 })), { maxLength: 6 }),
        fc.nat(),
        (text, raw, rotation) => {
          // disjoint edits at distinct starts, so their order does not matter
          const edits: { start: number; end: number; text: string }[] = [];
          let pos = 0;
          for (const [gap, len, t] of raw) {
            const start = pos + gap + (edits.length > 0 ? 1 : 0);
            if (start > text.length) break;
            const end = Math.min(text.length, start + len);
            edits.push({ start, end, text: t });
            pos = end;
          }
          let naive = text;
          for (const e of [...edits].reverse()) naive = naive.slice(0, e.start) + e.text + naive.slice(e.end);
          const k = edits.length > 0 ? rotation % edits.length : 0;
          expect(spliceSql(text, [...edits.slice(k), ...edits.slice(0, k)])).toBe(naive);
        },
      ),
    );
  });
});

describe('inStartOrder', () => {
  const edit = (start: number, tag: number) => ({ start, tag });
  it('returns edits already in order as they are', () => {
    const edits = [edit(1, 0), edit(1, 1), edit(5, 2)];
    expect(inStartOrder(edits)).toBe(edits);
  });

  it.each([3, 16, 17, 40])('orders %i edits by start and keeps ties in their given order', (n) => {
    const edits = Array.from({ length: n }, (_, i) => edit((i * 7) % 5, i));
    const expected = [...edits].sort((a, b) => a.start - b.start || a.tag - b.tag);
    const sorted = inStartOrder(edits);
    expect(sorted.map((e) => e.tag)).toEqual(expected.map((e) => e.tag));
    expect(edits.map((e) => e.tag)).toEqual(Array.from({ length: n }, (_, i) => i));
  });
});

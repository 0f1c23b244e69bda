import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareValues, type SortKeyType } from './compare-values.js';
import { MergeValueError } from './value-error.js';

const order = (a: unknown, b: unknown, type: SortKeyType, collation: 'binary' | 'case-insensitive' = 'binary'): number =>
  Math.sign(compareValues(a, b, type, collation));

describe('compareValues', () => {
  describe('NULL is the smallest value of every type', () => {
    const SOME: Record<SortKeyType, unknown> = {
      numeric: 1,
      string: 'a',
      binary: Buffer.from([0]),
      date: new Date(0),
      auto: -1,
      'mysql-weight': Buffer.from([0]),
      'mariadb-uuid': '00000000-0000-0000-0000-000000000000',
      'mariadb-uuid-swap-all': '00000000-0000-0000-0000-000000000000',
    };
    it.each(Object.keys(SOME) as SortKeyType[])('%s', (type) => {
      const some = SOME[type];
      expect(order(null, some, type)).toBe(-1);
      expect(order(some, undefined, type)).toBe(1);
      expect(order(null, undefined, type)).toBe(0);
      expect(order(Number.NaN, null, type)).toBe(0);
    });
  });

  describe('numeric', () => {
    it.each<[unknown, unknown, number]>([
      [2, 10, -1],
      ['2', '10', -1],
      ['12.50', '12.5', 0],
      ['12.50', 12.5, 0],
      ['9007199254740993', '9007199254740992', 1],
      ['9007199254740993', 9007199254740992, 1],
      [9007199254740993n, 9007199254740992, 1],
      [9007199254740992n, 9007199254740992, 0],
      ['18446744073709551615', 18446744073709551614n, 1],
      ['-1', '-0.5', -1],
      ['0.000001', '1e-7', 1],
      [true, 0, 1],
      [Infinity, '1e300', 1],
      [-Infinity, '-1e300', -1],
      [Infinity, Infinity, 0],
      [1.5, 2n, -1],
    ])('%s vs %s → %d', (a, b, expected) => {
      expect(order(a, b, 'numeric')).toBe(expected);
      expect(order(b, a, 'numeric')).toBe(-expected || 0);
    });

    it('throws MergeValueError for text that is not a number', () => {
      expect(() => compareValues('abc', '1', 'numeric')).toThrow(MergeValueError);
      expect(() => compareValues(new Date(), 1, 'numeric')).toThrow(/cannot order/);
    });

    it('orders random integers spelled as strings, numbers or bigints exactly', () => {
      const spell = (n: bigint, how: number): unknown =>
        how === 0 ? String(n) : how === 1 || !Number.isSafeInteger(Number(n)) ? n : Number(n);
      const int = fc.oneof(fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }), fc.bigInt({ min: -100n, max: 100n }));
      const how = fc.integer({ min: 0, max: 2 });
      fc.assert(
        fc.property(int, int, how, how, (x, y, hx, hy) => {
          expect(order(spell(x, hx), spell(y, hy), 'numeric')).toBe(x < y ? -1 : x > y ? 1 : 0);
        }),
      );
    });
  });

  describe('string', () => {
    it('binary collation is code point order (UTF-8 bytes), not UTF-16', () => {
      expect(order('\u{1F600}', '\uFFFD', 'string')).toBe(1);
      expect(order('B', 'a', 'string')).toBe(-1);
      expect(order('a', 'a ', 'string')).toBe(-1);
    });

    it('case-insensitive collation folds case, accents and trailing spaces', () => {
      expect(order('a', 'B', 'string', 'case-insensitive')).toBe(-1);
      expect(order('Éclair', 'eclair ', 'string', 'case-insensitive')).toBe(0);
    });

    it('compares non-text values by their text', () => {
      expect(order(10, '9', 'string')).toBe(-1);
    });
  });

  describe('binary', () => {
    it('compares bytes, and strings by their UTF-8 bytes', () => {
      expect(order(Buffer.from([1, 2]), Buffer.from([1, 3]), 'binary')).toBe(-1);
      expect(order(new Uint8Array([2]), Buffer.from([1, 255]), 'binary')).toBe(1);
      expect(order(Buffer.from([1]), Buffer.from([1, 0]), 'binary')).toBe(-1);
      expect(order('é', Buffer.from([0xc3, 0xa9]), 'binary')).toBe(0);
      expect(order('\u{1F600}', '\uFFFD', 'binary')).toBe(1);
    });
  });

  describe('date', () => {
    it.each<[unknown, unknown, number]>([
      [new Date('2024-01-01T00:00:00Z'), new Date('2024-01-01T00:00:01Z'), -1],
      ['2024-01-01 10:00:00', '2024-01-01 09:59:59.999999', 1],
      ['2024-01-01 10:00:00.5', '2024-01-01 10:00:00.500000', 0],
      ['2024-01-01T10:00:00', '2024-01-01 10:00:00', 0],
      ['2024-01-01', '2024-01-01 00:00:00', 0],
      ['2024-01-01 10:00', '2024-01-01 10:00:00.1', -1],
      ['2024-01-01T10:00:00Z', '2024-01-01T09:00:00-02:00', -1],
      [new Date(2024, 0, 1, 10, 0, 0), '2024-01-01 10:00:00', 0],
      [new Date(2024, 0, 1, 10, 0, 0), '2024-01-01 10:00:01', -1],
      [new Date(Number.NaN), new Date(0), -1],
    ])('%j vs %j → %d', (a, b, expected) => {
      expect(order(a, b, 'date')).toBe(expected);
      expect(order(b, a, 'date')).toBe(-expected || 0);
    });

    it('throws for text that is not a date', () => {
      expect(() => compareValues('yesterday', new Date(), 'date')).toThrow(MergeValueError);
    });
  });

  describe('auto', () => {
    it('infers the type from the values', () => {
      expect(order(2, 10n, 'auto')).toBe(-1);
      expect(order('2', '10', 'auto')).toBe(1);
      expect(order('abc', 'ABD', 'auto', 'case-insensitive')).toBe(-1);
      expect(order(new Date('2024-01-02T00:00:00Z'), '2024-01-01T00:00:00Z', 'auto')).toBe(1);
      expect(order(Buffer.from([2]), Buffer.from([1]), 'auto')).toBe(1);
    });

    it('orders different kinds as SQLite storage classes: numbers < text < bytes', () => {
      expect(order(99, 'a', 'auto')).toBe(-1);
      expect(order('z', Buffer.from([0]), 'auto')).toBe(-1);
      expect(order(Buffer.from([0]), 1, 'auto')).toBe(1);
    });

    it('throws for values it cannot order', () => {
      expect(() => compareValues({}, 1, 'auto')).toThrow(MergeValueError);
    });
  });
});

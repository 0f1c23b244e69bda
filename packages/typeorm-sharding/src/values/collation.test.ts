import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collationKey, compareCodePoints, compareStrings, foldCaseInsensitive } from './collation.js';

describe('compareCodePoints', () => {
  it('orders astral characters after U+E000–U+FFFF, unlike UTF-16 `<`', () => {
    const emoji = '\u{1F600}';
    const replacement = '\uFFFD';
    expect(emoji < replacement).toBe(true);
    expect(compareCodePoints(emoji, replacement)).toBeGreaterThan(0);
    expect(compareCodePoints('\uD7FF', emoji)).toBeLessThan(0);
  });

  it('equals UTF-8 byte order on any strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        const bytes = Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
        expect(Math.sign(compareCodePoints(a, b))).toBe(bytes);
      }),
    );
  });
});

describe('case-insensitive collation', () => {
  it.each([
    ['abc', 'ABC'],
    ['café', 'CAFE'],
    ['Ångström', 'angstrom'],
    ['a  ', 'A'],
    ['straße', 'STRASSE'],
  ])('%j equals %j', (a, b) => {
    expect(compareStrings(a, b, 'case-insensitive')).toBe(0);
    expect(foldCaseInsensitive(a)).toBe(foldCaseInsensitive(b));
  });

  it('orders like general_ci: letters by their upper case, `_` after `Z`', () => {
    const words = ['b', '_x', 'A', 'Z', 'a'];
    expect([...words].sort((x, y) => compareStrings(x, y, 'case-insensitive'))).toEqual(['A', 'a', 'b', 'Z', '_x']);
  });

  it('keeps Hangul and kana intact', () => {
    expect(foldCaseInsensitive('한국어がぎ')).toBe('한국어がぎ');
  });
});

// Orders and groups produced by SQLite (better-sqlite3) for these values, probed with
// `ORDER BY col, id` and `GROUP BY col` on columns declared COLLATE NOCASE / RTRIM.
describe('SQLite collations', () => {
  const values = ['a', 'a ', 'a\t', 'A', 'b', '', ' ', '_', 'ä', 'Ä', 'Z'];
  const sorted = (collation: 'nocase' | 'rtrim') =>
    values.map((v, i) => ({ v, i })).sort((x, y) => compareStrings(x.v, y.v, collation) || x.i - y.i).map((x) => x.v);

  it('NOCASE folds ASCII letters only: `_` before letters, `Z` after `b`, `Ä` ≠ `ä`', () => {
    expect(sorted('nocase')).toEqual(['', ' ', '_', 'a', 'A', 'a\t', 'a ', 'b', 'Z', 'Ä', 'ä']);
    expect(collationKey('ÄbC', 'nocase')).toBe('Äbc');
  });

  it('RTRIM ignores trailing spaces only (not tabs)', () => {
    expect(sorted('rtrim')).toEqual(['', ' ', 'A', 'Z', '_', 'a', 'a ', 'a\t', 'b', 'Ä', 'ä']);
    expect(compareStrings('a  ', 'a', 'rtrim')).toBe(0);
    expect(compareStrings('a\t', 'a', 'rtrim')).toBeGreaterThan(0);
  });

  it('keys are equal exactly when the strings are equal under the collation', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.constantFrom('nocase' as const, 'rtrim' as const, 'binary' as const), (a, b, collation) => {
        expect(collationKey(a, collation) === collationKey(b, collation)).toBe(compareStrings(a, b, collation) === 0);
      }),
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareCodePoints, compareStrings, foldCaseInsensitive } from './collation.js';

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

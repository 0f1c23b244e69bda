import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDecimals,
  compareDecimals,
  divideDecimal,
  formatDecimal,
  parseDecimal,
  parseScaledDecimal,
  toScaledDecimal,
  type ScaledDecimal,
} from './decimal.js';

const cmp = (a: string, b: string): number => Math.sign(compareDecimals(parseDecimal(a)!, parseDecimal(b)!));
const scaled = (text: string): ScaledDecimal => parseScaledDecimal(text)!;

describe('parseDecimal', () => {
  it.each([
    ['12.50', { negative: false, int: '12', frac: '5' }],
    ['-0.0', { negative: false, int: '', frac: '' }],
    ['007', { negative: false, int: '7', frac: '' }],
    ['.5', { negative: false, int: '', frac: '5' }],
    ['5.', { negative: false, int: '5', frac: '' }],
    ['+1.5e3', { negative: false, int: '1500', frac: '' }],
    ['-1.5e-3', { negative: true, int: '', frac: '0015' }],
    ['18446744073709551615', { negative: false, int: '18446744073709551615', frac: '' }],
  ])('%s', (text, parts) => {
    expect(parseDecimal(text)).toEqual(parts);
  });

  it.each(['', '.', '-', 'abc', '1.2.3', ' 1', '1e', '0x10', 'NaN', 'Infinity', '1e99999'])('rejects %j', (text) => {
    expect(parseDecimal(text)).toBeUndefined();
  });
});

describe('compareDecimals', () => {
  it.each([
    ['12.50', '12.5', 0],
    ['12.5', '12.49', 1],
    ['9007199254740993', '9007199254740992', 1],
    ['18446744073709551615', '18446744073709551614', 1],
    ['-18446744073709551615', '-18446744073709551614', -1],
    ['-0.001', '0', -1],
    ['-0', '0', 0],
    ['1e3', '1000.000', 0],
    ['.5', '0.50', 0],
    ['0.4', '0.41', -1],
    ['99', '100', -1],
    ['-99', '-100', 1],
  ])('%s vs %s', (a, b, expected) => {
    expect(cmp(a, b)).toBe(expected);
    expect(cmp(b, a)).toBe(-expected || 0);
  });

  it('agrees with bigint arithmetic on random decimals of any scale', () => {
    const decimal = fc.record({ unscaled: fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), scale: fc.integer({ min: 0, max: 8 }) });
    fc.assert(
      fc.property(decimal, decimal, fc.integer({ min: 0, max: 3 }), (a, b, zeros) => {
        const scale = Math.max(a.scale, b.scale);
        const x = a.unscaled * 10n ** BigInt(scale - a.scale);
        const y = b.unscaled * 10n ** BigInt(scale - b.scale);
        const expected = x < y ? -1 : x > y ? 1 : 0;
        const textA = formatDecimal(a) + (a.scale > 0 ? '0'.repeat(zeros) : '');
        expect(cmp(textA, formatDecimal(b))).toBe(expected);
      }),
    );
  });
});

describe('scaled decimals', () => {
  it('keeps the written scale', () => {
    expect(scaled('12.50')).toEqual({ unscaled: 1250n, scale: 2 });
    expect(scaled('-1.5e3')).toEqual({ unscaled: -1500n, scale: 0 });
    expect(scaled('2.5e-2')).toEqual({ unscaled: 25n, scale: 3 });
    expect(toScaledDecimal(0.1)).toEqual({ unscaled: 1n, scale: 1 });
    expect(toScaledDecimal(7)).toEqual({ unscaled: 7n, scale: 0 });
    expect(toScaledDecimal(12n)).toEqual({ unscaled: 12n, scale: 0 });
    expect(toScaledDecimal(Infinity)).toBeUndefined();
  });

  it.each([
    ['12.50', '0.50', '13.00'],
    ['0.1', '0.2', '0.3'],
    ['18446744073709551615', '1', '18446744073709551616'],
    ['-5.25', '5', '-0.25'],
    ['-0.05', '0', '-0.05'],
    ['1', '-1', '0'],
  ])('%s + %s = %s', (a, b, sum) => {
    expect(formatDecimal(addDecimals(scaled(a), scaled(b)))).toBe(sum);
  });

  it.each([
    ['10', 4n, 4, '2.5000'],
    ['1', 3n, 4, '0.3333'],
    ['2', 3n, 4, '0.6667'],
    ['-2', 3n, 4, '-0.6667'],
    ['0.05', 2n, 4, '0.025000'],
    ['5', 2n, 0, '3'],
    ['-5', 2n, 0, '-3'],
    ['12.50', 1n, 4, '12.500000'],
  ])('%s / %s with %s more digits = %s', (dividend, divisor, extra, quotient) => {
    expect(formatDecimal(divideDecimal(scaled(dividend), divisor, extra))).toBe(quotient);
  });
});

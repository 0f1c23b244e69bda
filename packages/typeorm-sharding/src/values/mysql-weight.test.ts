import { describe, expect, it } from 'vitest';
import { canonicalValueKey } from '../merge/canonical-key.js';
import { MergeValueError } from './value-error.js';
import { compareMysqlWeights } from './mysql-weight.js';

/** A key as the plan's SQL builds it: pad length, pad weight, weights without trailing pads. */
const key = (pad: number[], weights: number[]): Buffer => Buffer.from([pad.length, ...pad, ...weights]);
const GENERAL_CI_PAD = [0x00, 0x20];
// utf8mb4_general_ci weights (2 bytes per character) of 'A', TAB, 'B'.
const A = [0x00, 0x41];
const TAB = [0x00, 0x09];
const B = [0x00, 0x42];

describe('compareMysqlWeights', () => {
  it('PAD SPACE: a character weighing less than space after a common prefix sorts first (`a\\t` < `a`)', () => {
    expect(compareMysqlWeights(key(GENERAL_CI_PAD, [...A, ...TAB]), key(GENERAL_CI_PAD, A))).toBeLessThan(0);
    expect(compareMysqlWeights(key(GENERAL_CI_PAD, A), key(GENERAL_CI_PAD, [...A, ...TAB]))).toBeGreaterThan(0);
    // …and one weighing more sorts last, as without padding.
    expect(compareMysqlWeights(key(GENERAL_CI_PAD, [...A, ...B]), key(GENERAL_CI_PAD, A))).toBeGreaterThan(0);
  });

  it('NO PAD (pad length 0): a prefix sorts first, byte-wise', () => {
    expect(compareMysqlWeights(key([], [...A, ...TAB]), key([], A))).toBeGreaterThan(0);
    expect(compareMysqlWeights(key([], A), key([], A))).toBe(0);
  });

  it('pads with the whole pad weight, in its phase (3-byte utf8mb4_bin units)', () => {
    const pad = [0x00, 0x00, 0x20];
    // 'a' + U+0020-weight-like unit that differs only in its last byte from the pad.
    expect(compareMysqlWeights(key(pad, [0x00, 0x00, 0x61, 0x00, 0x00, 0x1f]), key(pad, [0x00, 0x00, 0x61]))).toBeLessThan(0);
    expect(compareMysqlWeights(key(pad, [0x00, 0x00, 0x61, 0x00, 0x00, 0x21]), key(pad, [0x00, 0x00, 0x61]))).toBeGreaterThan(0);
  });

  it('equal keys are equal bytes, so GROUP BY/DISTINCT can use the bytes as they are', () => {
    const x = key(GENERAL_CI_PAD, A);
    const y = key(GENERAL_CI_PAD, A);
    expect(compareMysqlWeights(x, y)).toBe(0);
    expect(canonicalValueKey(x)).toBe(canonicalValueKey(y));
    expect(canonicalValueKey(x)).not.toBe(canonicalValueKey(key(GENERAL_CI_PAD, [...A, ...TAB])));
  });

  it('refuses values that are not keys', () => {
    expect(() => compareMysqlWeights('a', key([], A))).toThrow(MergeValueError);
    expect(() => compareMysqlWeights(Buffer.from([]), key([], A))).toThrow(MergeValueError);
    expect(() => compareMysqlWeights(Buffer.from([5, 1]), key([], A))).toThrow(MergeValueError);
    expect(() => compareMysqlWeights(key(GENERAL_CI_PAD, A), key([], A))).toThrow(/different collations/);
  });
});

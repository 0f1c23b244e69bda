import { describe, expect, it } from 'vitest';
import { ShardingInternalError, UnsupportedShardingError } from '../errors/index.js';
import { canonicalFullRowKey, canonicalRowKey, canonicalValueKey } from './canonical-key.js';

describe('canonicalValueKey', () => {
  it('is one key for one SQL value across JS types, and apart for text and numbers', () => {
    expect(canonicalValueKey(1)).toBe(canonicalValueKey(1n));
    expect(canonicalValueKey(true)).toBe(canonicalValueKey(1));
    expect(canonicalValueKey('1')).not.toBe(canonicalValueKey(1));
    expect(canonicalValueKey(null)).toBe(canonicalValueKey(undefined));
    expect(canonicalValueKey(Buffer.from([0x80]))).not.toBe(canonicalValueKey(Buffer.from([0xff])));
  });

  it('refuses text holding U+FFFD: bytes that are not UTF-8 (X\'80\', X\'FF\') all arrive as that one character', () => {
    // better-sqlite3 reads `X'80' || '-'` and `X'FF' || '-'` both as "\uFFFD-": grouping by the
    // JS string would join two groups the database keeps apart.
    const fromEighty = Buffer.from([0x80, 0x2d]).toString('utf8');
    const fromFf = Buffer.from([0xff, 0x2d]).toString('utf8');
    expect(fromEighty).toBe(fromFf);
    expect(() => canonicalValueKey(fromEighty)).toThrow(UnsupportedShardingError);
    expect(() => canonicalRowKey({ g: fromFf }, [{ column: 'g' }])).toThrow(/U\+FFFD/);
    expect(() => canonicalFullRowKey({ a: 1, b: 'x\uFFFD' })).toThrow(UnsupportedShardingError);
    expect(canonicalValueKey('-')).toBe('s-');
  });

  it('refuses to group rows by a column they do not hold (it would read as NULL and join every group)', () => {
    expect(() => canonicalRowKey({ 'qty:1': 3, n: 1 }, [{ column: 'qty' }])).toThrow(ShardingInternalError);
    expect(canonicalRowKey({ qty: null }, [{ column: 'qty' }])).toBe('1:N');
  });
});

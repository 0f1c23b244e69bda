import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidShardKeyError } from '../errors/index.js';
import { canonicalKey, canonicalKeyBytes, canonicalKeyString } from './canonical-key.js';
import { createHashAlgorithm } from './hash-algorithm.js';

const hash4 = createHashAlgorithm({ shardNames: ['s0', 's1', 's2', 's3'], keyKind: 'integer' });
const hash64 = createHashAlgorithm({
  shardNames: Array.from({ length: 64 }, (_, i) => `s${i}`),
  keyKind: 'integer',
});

describe('canonicalKeyString, integer keys', () => {
  it('gives every spelling of 5 the same text and the same shard', () => {
    const spellings: unknown[] = [5, '5', 5n, '005', '+5', '+005'];
    for (const s of spellings) expect(canonicalKeyString(s, 'integer')).toBe('5');
    const shards = new Set(spellings.map((s) => hash64.shardIndexOf(s)));
    expect(shards.size).toBe(1);
  });

  it('writes zero as "0" whatever its sign or padding', () => {
    for (const zero of [0, -0, 0n, '0', '-0', '+0', '000', '-000']) {
      expect(canonicalKeyString(zero, 'integer')).toBe('0');
    }
  });

  it('keeps the sign of negative keys and drops their leading zeros', () => {
    expect(canonicalKeyString(-42, 'integer')).toBe('-42');
    expect(canonicalKeyString('-0042', 'integer')).toBe('-42');
    expect(canonicalKeyString(-42n, 'integer')).toBe('-42');
  });

  it('keeps digit strings beyond 2^53 exact', () => {
    expect(canonicalKeyString('18446744073709551615', 'integer')).toBe('18446744073709551615');
    expect(canonicalKeyString('0018446744073709551615', 'integer')).toBe('18446744073709551615');
    expect(canonicalKeyString('9007199254740993', 'integer')).toBe('9007199254740993');
    expect(canonicalKeyString(2n ** 53n + 1n, 'integer')).toBe('9007199254740993');
  });

  it('routes 2^53 + 1 identically as string and BigInt, and apart from 2^53', () => {
    const asString = hash64.bucketOf('9007199254740993');
    expect(hash64.bucketOf(2n ** 53n + 1n)).toBe(asString);
    expect(hash64.bucketOf(2n ** 53n)).not.toBe(asString);
    expect(hash64.bucketOf(2n ** 53n)).toBe(hash64.bucketOf('9007199254740992'));
    // As JS numbers both are 2 ** 53, which is rejected rather than guessed at.
    expect(() => hash64.bucketOf(2 ** 53 + 1)).toThrow(InvalidShardKeyError);
  });

  it('accepts the largest safe integers as numbers', () => {
    expect(canonicalKeyString(Number.MAX_SAFE_INTEGER, 'integer')).toBe('9007199254740991');
    expect(canonicalKeyString(Number.MIN_SAFE_INTEGER, 'integer')).toBe('-9007199254740991');
  });

  const badIntegerKeys: [string, unknown, RegExp][] = [
    ['a fraction', 1.5, /number 1\.5 .*not an integer/],
    ['NaN', Number.NaN, /number NaN .*not a finite number/],
    ['Infinity', Number.POSITIVE_INFINITY, /number Infinity/],
    ['-Infinity', Number.NEGATIVE_INFINITY, /number -Infinity/],
    ['an unsafe integer number (2^60)', 2 ** 60, /number 1152921504606847000 .*2\^53/],
    ['2^53 as a number', 2 ** 53, /beyond/],
    ['null', null, /got null/],
    ['undefined', undefined, /got undefined/],
    ['true', true, /got boolean true/],
    ['false', false, /got boolean false/],
    ['a Date', new Date('2024-01-02T03:04:05Z'), /got a Date \(2024-01-02T03:04:05\.000Z\)/],
    ['an object', { id: 5 }, /got an object/],
    ['an array', [5], /got an array of length 1/],
    ['a symbol', Symbol('k'), /got symbol Symbol\(k\)/],
    ['a function', () => 5, /got a function/],
    ['a Buffer', Buffer.from('5'), /got a Buffer of 1 bytes/],
    ['an empty string', '', /got string ""/],
    ['a sign alone', '-', /got string "-"/],
    ['a decimal string', '5.0', /got string "5\.0"/],
    ['an exponent', '1e3', /got string "1e3"/],
    ['hex', '0x10', /got string "0x10"/],
    ['surrounding spaces', ' 5', /got string " 5"/],
    ['a trailing newline', '5\n', /got string "5\\n"/],
    ['non-ASCII digits', '\u0665', /got string/],
    ['two signs', '+-5', /got string "\+-5"/],
  ];
  it.each(badIntegerKeys)('rejects %s', (_label, value, message) => {
    expect(() => canonicalKeyString(value, 'integer')).toThrow(InvalidShardKeyError);
    expect(() => canonicalKeyString(value, 'integer')).toThrow(message);
    expect(() => hash4.shardIndexOf(value)).toThrow(InvalidShardKeyError);
  });

  it('names the key kind and what was expected in the message', () => {
    expect(() => canonicalKeyString(null, 'integer')).toThrow(
      'Invalid integer shard key: got null (expected a safe-integer number, a bigint or a string of decimal digits)',
    );
  });
});

describe('canonicalKeyString, string keys', () => {
  it('keeps strings byte for byte', () => {
    for (const s of ['abc', 'ABC', ' abc ', '005', '', 'Z\u00fcrich', 'Zu\u0308rich', '\u65e5\u672c']) {
      expect(canonicalKeyString(s, 'string')).toBe(s);
    }
  });

  it('writes integer numbers and bigints as decimal text', () => {
    expect(canonicalKeyString(42, 'string')).toBe('42');
    expect(canonicalKeyString(-0, 'string')).toBe('0');
    expect(canonicalKeyString(12345678901234567890n, 'string')).toBe('12345678901234567890');
  });

  const badStringKeys: [string, unknown][] = [
    ['a fraction', 1.5],
    ['NaN', Number.NaN],
    ['an unsafe integer number', 2 ** 60],
    ['null', null],
    ['undefined', undefined],
    ['a boolean', true],
    ['a Date', new Date(0)],
    ['an object', {}],
    ['an object of a class', new Map()],
  ];
  it.each(badStringKeys)('rejects %s', (_label, value) => {
    expect(() => canonicalKeyString(value, 'string')).toThrow(InvalidShardKeyError);
    expect(() => canonicalKeyString(value, 'string')).toThrow(/Invalid string shard key: got /);
  });
});

describe('binary keys', () => {
  it('hashes the bytes of a Buffer or Uint8Array given for a string key', () => {
    const bytes = new Uint8Array([0xde, 0xad, 0xbe, 0xef]);
    expect(canonicalKey(bytes, 'string')).toBe(bytes);
    expect(canonicalKeyBytes(bytes, 'string')).toEqual(Buffer.from([0xde, 0xad, 0xbe, 0xef]));
    const buffer = Buffer.from('abc');
    expect(canonicalKeyBytes(buffer, 'string')).toBe(buffer);
  });

  it('respects the offset of a Uint8Array view', () => {
    const view = new Uint8Array([1, 2, 3, 4]).subarray(1, 3);
    expect([...canonicalKeyBytes(view, 'string')]).toEqual([2, 3]);
  });

  it('gives a binary key no canonical text', () => {
    expect(() => canonicalKeyString(Buffer.from('abc'), 'string')).toThrow(/binary shard key .* has no canonical text/);
  });
});

describe('canonicalKeyBytes', () => {
  it('is the UTF-8 encoding of the canonical text', () => {
    expect(canonicalKeyBytes('005', 'integer')).toEqual(Buffer.from('5'));
    expect(canonicalKeyBytes('Z\u00fcrich', 'string')).toEqual(Buffer.from([0x5a, 0xc3, 0xbc, 0x72, 0x69, 0x63, 0x68]));
  });
});

describe('canonicalisation properties', () => {
  const integerText = fc.stringMatching(/^[+-]?\d{1,30}$/);

  it('is idempotent for integer keys', () => {
    fc.assert(
      fc.property(fc.oneof(integerText, fc.bigInt(), fc.maxSafeInteger()), (key) => {
        const once = canonicalKeyString(key, 'integer');
        expect(canonicalKeyString(once, 'integer')).toBe(once);
      }),
    );
  });

  it('is idempotent for string keys', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.bigInt(), fc.maxSafeInteger()), (key) => {
        const once = canonicalKeyString(key, 'string');
        expect(canonicalKeyString(once, 'string')).toBe(once);
      }),
    );
  });

  it('gives a digit string the value BigInt() reads from it', () => {
    fc.assert(
      fc.property(integerText, (text) => {
        expect(canonicalKeyString(text, 'integer')).toBe(BigInt(text).toString());
      }),
    );
  });

  it('routes number n, BigInt(n), String(n) and a zero-padded String(n) to one shard', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), fc.nat(5), (n, padding) => {
        const text = String(n);
        const padded = text.startsWith('-') ? `-${'0'.repeat(padding)}${text.slice(1)}` : `${'0'.repeat(padding)}${text}`;
        const shard = hash64.shardIndexOf(n);
        expect(hash64.shardIndexOf(BigInt(n))).toBe(shard);
        expect(hash64.shardIndexOf(text)).toBe(shard);
        expect(hash64.shardIndexOf(padded)).toBe(shard);
      }),
    );
  });

  it('routes a bigint and its decimal text to one shard, at any size', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }), (k) => {
        expect(hash64.shardIndexOf(k)).toBe(hash64.shardIndexOf(k.toString()));
      }),
    );
  });
});

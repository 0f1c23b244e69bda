import zlib from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidShardKeyError } from '../errors/index.js';
import { crc32, hasNativeCrc32, keyHash } from './hash.js';

describe('crc32', () => {
  it('is the standard CRC-32 (check value of "123456789" is 0xCBF43926)', () => {
    expect(crc32('123456789')).toBe(0xcbf43926);
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    expect(crc32('')).toBe(0);
  });

  it('agrees with zlib.crc32 on any string, short or long, ASCII or not', () => {
    expect(hasNativeCrc32()).toBe(true);
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 80 }), fc.string({ maxLength: 80 })), (text) => {
        expect(crc32(text)).toBe(zlib.crc32(text));
        expect(crc32(Buffer.from(text, 'utf8'))).toBe(zlib.crc32(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees with zlib.crc32 on any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        expect(crc32(bytes)).toBe(zlib.crc32(bytes));
      }),
      { numRuns: 2000 },
    );
  });

  it('hashes a lone surrogate as U+FFFD, as UTF-8 encoding does', () => {
    expect(crc32('\ud800')).toBe(crc32('\ufffd'));
  });
});

describe('keyHash', () => {
  it('hashes the canonical form', () => {
    expect(keyHash('005', 'integer')).toBe(crc32('5'));
    expect(keyHash('005', 'string')).toBe(crc32('005'));
    expect(keyHash(Buffer.from([1, 2, 3]), 'string')).toBe(zlib.crc32(Buffer.from([1, 2, 3])));
  });

  it('throws InvalidShardKeyError for a value that is not a key', () => {
    expect(() => keyHash(undefined, 'string')).toThrow(InvalidShardKeyError);
  });

  it('hashes a safe-integer number as its decimal text, for either kind (digits hashed without the string)', () => {
    for (const n of [0, -0, 7, -7, 10, 99, 100, 640_000, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]) {
      expect(keyHash(n, 'integer')).toBe(zlib.crc32(String(n)));
      expect(keyHash(n, 'string')).toBe(zlib.crc32(String(n)));
    }
    fc.assert(fc.property(fc.maxSafeInteger(), (n) => keyHash(n, 'integer') === zlib.crc32(String(n)) && keyHash(n, 'string') === zlib.crc32(String(n))));
  });
});

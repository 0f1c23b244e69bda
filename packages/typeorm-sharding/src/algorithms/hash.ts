import zlib from 'node:zlib';
import { canonicalKey } from './canonical-key.js';
import type { KeyKind } from './key-kind.js';

// Inputs up to this length are hashed in JS; beyond it the native call is faster.
const JS_MAX_LENGTH = 40;

// CRC_TABLE[b]: the CRC register after shifting byte b through eight rounds of the polynomial.
const CRC_TABLE = (() => {
  const table = new Int32Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
    table[byte] = crc;
  }
  return table;
})();

/**
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320) of `data`, as an unsigned 32-bit
 * integer. A string is hashed as its UTF-8 bytes.
 *
 * This is the CRC-32 of zlib, gzip, PNG, Python's `zlib.crc32` and MySQL/MariaDB's
 * `CRC32()`. It was chosen as the shard-key hash because it is a published standard that
 * every platform can reproduce, it is cheap, and the database can compute a row's
 * bucket itself — e.g. to check a placement or drive a resharding job — with
 * `CRC32(CAST(id AS CHAR)) % 1024` for an integer key or `CRC32(code) % 1024` for a string
 * key on a utf8mb4 column. It is not a cryptographic hash: it spreads ordinary keys
 * evenly but does not resist keys chosen to collide.
 *
 * Node's native `zlib.crc32` computes it; for short ASCII input (most keys: decimal ids,
 * UUIDs) a table-driven loop in JS gives the same value several times faster, because it
 * avoids the cost of calling into native code, so that is used there.
 */
export function crc32(data: string | Uint8Array): number {
  if (data.length <= JS_MAX_LENGTH) {
    const crc = typeof data === 'string' ? crc32Ascii(data) : crc32Bytes(data);
    if (crc >= 0) return crc;
  }
  return zlib.crc32(data);
}

/** CRC-32 of an ASCII string, or -1 if it holds a non-ASCII character (whose UTF-8 is multi-byte). */
function crc32Ascii(text: string): number {
  let crc = -1;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return -1;
    crc = CRC_TABLE[(crc ^ code) & 0xff]! ^ (crc >>> 8);
  }
  return (crc ^ -1) >>> 0;
}

function crc32Bytes(bytes: Uint8Array): number {
  let crc = -1;
  for (let i = 0; i < bytes.length; i++) crc = CRC_TABLE[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

/**
 * The shard-key hash of `value`: {@link crc32} of its canonical form (see
 * `canonicalKey`), so every spelling of one key (`5`, `'5'`, `5n`, `'005'`) has one hash.
 * Throws `InvalidShardKeyError` for a value that cannot be a key of kind `kind`.
 */
export function keyHash(value: unknown, kind: KeyKind): number {
  // A safe-integer number's canonical form is its decimal text for either kind: hashed digit by
  // digit, without making the string (routing hashes every IN value of every statement).
  if (typeof value === 'number' && Number.isSafeInteger(value)) return crc32Integer(value);
  return crc32(canonicalKey(value, kind));
}

/** Decimal digits of a safe integer, least significant first (16 digits hold 2^53 − 1). */
const DIGITS = new Uint8Array(16);

/** CRC-32 of `String(value)` for a safe integer (`-0` is `'0'`), without making the string. */
function crc32Integer(value: number): number {
  let crc = -1;
  let n = value;
  if (n < 0) {
    crc = CRC_TABLE[(crc ^ 0x2d) & 0xff]! ^ (crc >>> 8); // '-'
    n = -n;
  }
  let count = 0;
  do {
    const q = Math.floor(n / 10);
    DIGITS[count++] = 0x30 + (n - q * 10);
    n = q;
  } while (n > 0);
  while (count > 0) crc = CRC_TABLE[(crc ^ DIGITS[--count]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

/**
 * Whether this Node.js provides `zlib.crc32` (added in Node 20.15 / 22.2). Checked when a
 * hash algorithm is created so that an old runtime fails at start-up with a clear message.
 */
export function hasNativeCrc32(): boolean {
  return typeof (zlib as { crc32?: unknown }).crc32 === 'function';
}

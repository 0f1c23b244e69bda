import { InvalidShardKeyError } from '../errors/index.js';
import { describeValue } from './describe-value.js';
import type { KeyKind } from './key-kind.js';

/**
 * The canonical form of a shard-key value: text for integer and string keys, raw bytes
 * for binary keys (a `Uint8Array`/`Buffer` given for a `string` key). It is what gets
 * hashed, so two values that the database treats as the same key must have one
 * canonical form.
 */
export type CanonicalKey = string | Uint8Array;

const PLUS = 0x2b;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

/**
 * The canonical form of `value` as a key of a column of type family `kind`.
 *
 * Integer keys (`kind = 'integer'`) become their minimal decimal text: an optional `-`,
 * then digits without leading zeros; zero is `'0'` (so `-0`, `'-0'`, `'+0'`, `'000'` are
 * all `'0'`). Accepted spellings:
 * - a `number` that is a safe integer (`Number.isSafeInteger`). Fractions, `NaN`,
 *   `±Infinity` and integers beyond ±(2^53 − 1) are rejected: a number like `2 ** 60`
 *   has already been rounded, so the key it names is not knowable;
 * - a `bigint`, of any size;
 * - a `string` of the form `[+-]?[0-9]+` — optional sign, ASCII digits, nothing else.
 *   Leading zeros and `+` are accepted because MySQL/MariaDB find the row `5` for
 *   `id = '005'` or `id = '+5'` on an integer column. Digits are copied as text, never
 *   through a JS number, so `'18446744073709551615'` and `'9007199254740993'` stay exact.
 *   Whitespace, decimals (`'5.0'`), exponents and hex are rejected although MySQL would
 *   coerce some of them: such a value is almost always a bug, and failing loudly beats
 *   routing it to a shard whose rows it may not match.
 *
 * No range check is made (a BIGINT UNSIGNED holds up to 2^64 − 1); the database rejects
 * out-of-range values itself.
 *
 * String keys (`kind = 'string'`) are compared byte for byte:
 * - a `string` is its own canonical form (hashed as UTF-8; no trimming, case folding or
 *   Unicode normalisation — so under a case- or accent-insensitive collation the
 *   application must always spell a key the same way);
 * - a safe-integer `number` or a `bigint` becomes its decimal text (`42` → `'42'`);
 *   non-integer numbers are rejected because their text is ambiguous (`1.5` vs `'1.50'`);
 * - a `Uint8Array` (or `Buffer`), for binary key columns, is returned as is: its bytes.
 *
 * Anything else — `null`, `undefined`, booleans, `Date`s, arrays, objects, symbols —
 * throws {@link InvalidShardKeyError} naming what was given.
 */
export function canonicalKey(value: unknown, kind: KeyKind): CanonicalKey {
  return kind === 'integer' ? canonicalInteger(value) : canonicalStringKey(value);
}

/**
 * The canonical text of `value` (see {@link canonicalKey}). This is the text the
 * database sees when it computes a row's hash itself, e.g. `CRC32(CAST(id AS CHAR))`.
 * Throws {@link InvalidShardKeyError} for a binary key, which has no canonical text.
 */
export function canonicalKeyString(value: unknown, kind: KeyKind): string {
  const key = canonicalKey(value, kind);
  if (typeof key !== 'string') {
    throw new InvalidShardKeyError(
      `A binary shard key (${describeValue(value)}) has no canonical text; use canonicalKeyBytes`,
    );
  }
  return key;
}

/**
 * The canonical bytes of `value` (see {@link canonicalKey}): the UTF-8 encoding of its
 * canonical text, or, for a binary key, a view of its own bytes (not a copy).
 */
export function canonicalKeyBytes(value: unknown, kind: KeyKind): Buffer {
  const key = canonicalKey(value, kind);
  if (typeof key === 'string') return Buffer.from(key, 'utf8');
  return Buffer.isBuffer(key) ? key : Buffer.from(key.buffer, key.byteOffset, key.byteLength);
}

function canonicalInteger(value: unknown): string {
  switch (typeof value) {
    case 'number':
      if (Number.isSafeInteger(value)) return String(value); // String(-0) is '0'
      throw invalid(value, 'integer', unsafeNumberReason(value));
    case 'bigint':
      return value.toString();
    case 'string':
      return canonicalIntegerText(value);
    default:
      throw invalid(value, 'integer', 'expected a safe-integer number, a bigint or a string of decimal digits');
  }
}

function canonicalIntegerText(text: string): string {
  const first = text.charCodeAt(0);
  const signed = first === PLUS || first === MINUS;
  let start = signed ? 1 : 0;
  if (start === text.length) throw invalidIntegerText(text); // '' or a lone sign
  for (let i = start; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < ZERO || code > NINE) throw invalidIntegerText(text);
  }
  while (start < text.length - 1 && text.charCodeAt(start) === ZERO) start++;
  if (!signed && start === 0) return text; // already minimal: the common case, no copy
  const magnitude = text.slice(start);
  return first === MINUS && magnitude !== '0' ? `-${magnitude}` : magnitude;
}

function invalidIntegerText(text: string): InvalidShardKeyError {
  return invalid(text, 'integer', 'a string integer key must be decimal digits with an optional sign');
}

function canonicalStringKey(value: unknown): CanonicalKey {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      if (Number.isSafeInteger(value)) return String(value);
      throw invalid(value, 'string', `${unsafeNumberReason(value)}; pass the key as a string`);
    case 'bigint':
      return value.toString();
  }
  if (value instanceof Uint8Array) return value;
  throw invalid(value, 'string', 'expected a string, a safe-integer number, a bigint or a Uint8Array');
}

function unsafeNumberReason(value: number): string {
  if (!Number.isFinite(value)) return 'not a finite number';
  if (!Number.isInteger(value)) return 'not an integer';
  return 'beyond ±(2^53 − 1), so its exact value is already lost; pass it as a string or bigint';
}

function invalid(value: unknown, kind: KeyKind, reason: string): InvalidShardKeyError {
  return new InvalidShardKeyError(`Invalid ${kind} shard key: got ${describeValue(value)} (${reason})`);
}

import { ShardingInternalError, UnsupportedShardingError } from '../errors/index.js';
import { collationKey, type Collation } from '../values/collation.js';
import { isSqlNull } from '../values/compare-values.js';
import { parseDecimal } from '../values/decimal.js';
import { showValue } from './merge-error.js';
import type { Row } from './row.js';

/**
 * A column that identifies a group (GROUP BY) or takes part in DISTINCT, with the
 * collation its text values are compared under. MySQL groups `_ci` text
 * case-insensitively: `'a'` and `'A'` fall into one group, which keeps the first value seen.
 */
export interface GroupKey {
  /** Result column alias. */
  readonly column: string;
  /** @default 'binary' */
  readonly collation?: Collation;
}

/**
 * A string that is equal for two values exactly when SQL's GROUP BY / DISTINCT would
 * treat them as one: all NULLs are one value; numbers, bigints and booleans are one
 * numeric domain (`1`, `1n` and `true` are equal); strings are kept apart from numbers
 * (a DECIMAL column always returns one text form, e.g. `'12.50'`, so text equality is
 * enough); dates by millisecond; bytes by content; JSON objects by content with sorted keys.
 */
export function canonicalValueKey(value: unknown, collation: Collation = 'binary'): string {
  if (isSqlNull(value)) return 'N';
  switch (typeof value) {
    case 'string':
      if (value.includes(REPLACEMENT_CHARACTER)) throw undecodableText(value);
      return `s${collationKey(value, collation)}`;
    case 'number':
      return Number.isSafeInteger(value) ? `n${value}` : `n${canonicalNumberText(String(value))}`;
    case 'bigint':
      return `n${value}`;
    case 'boolean':
      return value ? 'n1' : 'n0';
  }
  if (value instanceof Date) return `d${value.getTime()}`;
  if (value instanceof Uint8Array) return `b${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
  return `j${stableJson(value)}`;
}

/**
 * U+FFFD is what a driver reads text that is not valid UTF-8 as (better-sqlite3 does so for
 * every TEXT value, and SQLite's `blob || 'x'` makes such text): X'80' and X'FF' both arrive as
 * "\uFFFD", so their rows can no longer be told apart, and a merge that groups by the JS string
 * would join two groups the database keeps apart. Refused rather than guessed.
 */
const REPLACEMENT_CHARACTER = '\uFFFD';

function undecodableText(value: string): UnsupportedShardingError {
  return new UnsupportedShardingError(
    `A GROUP BY / DISTINCT / UNION value over several shards is text holding U+FFFD (${showValue(value)}), the character a driver reads bytes that are not valid UTF-8 as: ` +
      'values that differ in the database arrive equal here, so they cannot be grouped across shards. Group by HEX(…) or CAST(… AS BLOB) of the expression instead.',
    { stage: 'merge' },
  );
}

// 1e21 and 1000000000000000000000n must share a key: both are written as plain digits.
function canonicalNumberText(text: string): string {
  const parts = parseDecimal(text);
  if (parts === undefined) return text;
  const magnitude = `${parts.int || '0'}${parts.frac === '' ? '' : `.${parts.frac}`}`;
  return parts.negative ? `-${magnitude}` : magnitude;
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? String(value);
}

/**
 * The canonical key of several columns of a row: the value keys, length-prefixed so
 * that no two different tuples can produce the same string.
 */
export function canonicalRowKey(row: Row, keys: readonly GroupKey[]): string {
  let out = '';
  for (const key of keys) {
    const value = row[key.column];
    // An absent column would read as NULL and join every row into one group: the shards named it otherwise.
    if (value === undefined && !(key.column in row)) throw new ShardingInternalError(`the shards' rows have no column "${key.column}" to group by (they hold ${Object.keys(row).map((c) => `"${c}"`).join(', ')})`, { stage: 'merge' });
    const part = canonicalValueKey(value, key.collation);
    out += `${part.length}:${part}`;
  }
  return out;
}

/** The canonical key of every column of a row, in the row's column order, compared exactly. */
export function canonicalFullRowKey(row: Row): string {
  let out = '';
  for (const column in row) {
    const part = canonicalValueKey(row[column]);
    out += `${part.length}:${part}`;
  }
  return out;
}

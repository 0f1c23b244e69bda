import { compareCodePoints, compareStrings, type Collation } from './collation.js';
import { compareDecimals, parseDecimal, type DecimalParts } from './decimal.js';
import { compareMariadbUuids } from './mariadb-uuid.js';
import { MergeValueError, showValue } from './value-error.js';
import { compareMysqlWeights } from './mysql-weight.js';

/**
 * How the database orders the values of one sort key.
 *
 * - `numeric`: numbers, bigints, booleans and numeric strings (mysql2's DECIMAL and
 *   BIGINT) compared exactly as numbers: `'12.50'` = `'12.5'`, 20-digit ids exactly.
 * - `string`: text under the key's {@link Collation}.
 * - `binary`: bytes (`Buffer`/`Uint8Array`, e.g. a `WEIGHT_STRING()` column) compared
 *   byte-wise; strings compare by their UTF-8 bytes.
 * - `date`: `Date` objects and date/time strings by time.
 * - `auto`: chosen from the JavaScript types of the two values (see {@link compareValues}).
 *   mysql2 returns DECIMAL as a string, which `auto` orders as text: the plan should
 *   type such keys `numeric`. With SQLite's values (numbers, text, bytes) this is exactly
 *   SQLite's order.
 * - `mysql-weight`: a MySQL text sort key built by the plan from `WEIGHT_STRING()` and the
 *   collation's pad weight (see `compareMysqlWeights`): exact for every collation.
 * - `mariadb-uuid` / `mariadb-uuid-swap-all`: MariaDB's native `UUID` text, in the server's
 *   stored order (see `compareMariadbUuids`; `swap-all` for MariaDB before 10.11.5).
 */
export type SortKeyType = 'numeric' | 'string' | 'binary' | 'date' | 'auto' | 'mysql-weight' | 'mariadb-uuid' | 'mariadb-uuid-swap-all';

/** Orders two values: negative, zero or positive like `a - b`. */
export type ValueComparator = (a: unknown, b: unknown) => number;

/**
 * True for the values that are SQL NULL. `NaN` counts as NULL because SQLite stores a NaN
 * result as NULL and MySQL has no NaN.
 */
export function isSqlNull(value: unknown): boolean {
  return value === null || value === undefined || (typeof value === 'number' && Number.isNaN(value));
}

/**
 * Builds the comparator of one ascending sort key. NULL is the smallest value, so NULLs
 * come first ascending and last descending, as in MySQL and SQLite.
 */
export function createValueComparator(type: SortKeyType, collation: Collation = 'binary'): ValueComparator {
  const compare = NON_NULL_COMPARATORS[type](collation);
  return (a, b) => {
    const aNull = isSqlNull(a);
    const bNull = isSqlNull(b);
    if (aNull || bNull) return aNull === bNull ? 0 : aNull ? -1 : 1;
    return compare(a, b);
  };
}

/**
 * Compares two values as the database would for a sort key of `type` (ascending).
 * For `auto`: numbers, bigints and booleans compare as `numeric`; a `Date` on either side
 * makes it `date`; two strings compare as `string`; two byte arrays as `binary`. Values of
 * different kinds order as SQLite's storage classes do: NULL < numbers < text < bytes.
 * Throws {@link MergeValueError} for values the type cannot order.
 */
export function compareValues(a: unknown, b: unknown, type: SortKeyType, collation: Collation = 'binary'): number {
  return createValueComparator(type, collation)(a, b);
}

const NON_NULL_COMPARATORS: Record<SortKeyType, (collation: Collation) => ValueComparator> = {
  numeric: () => compareNumeric,
  string: (collation) => (a, b) => compareText(a, b, collation),
  binary: () => compareBinary,
  date: () => compareDates,
  auto: (collation) => (a, b) => compareAuto(a, b, collation),
  'mysql-weight': () => compareMysqlWeights,
  'mariadb-uuid': () => (a, b) => compareMariadbUuids(a, b, 'swap-v1-5'),
  'mariadb-uuid-swap-all': () => (a, b) => compareMariadbUuids(a, b, 'swap-all'),
};

// --- numeric ---------------------------------------------------------------------------

// Up to 15 characters a decimal has at most 15 significant digits; distinct decimals of
// 15 digits round to distinct doubles, in order, so Number() compares them exactly.
const SHORT_DECIMAL = /^-?\d+(?:\.\d+)?$/;

function compareNumeric(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string' && a.length <= 15 && b.length <= 15) {
    if (SHORT_DECIMAL.test(a) && SHORT_DECIMAL.test(b)) {
      const x = Number(a);
      const y = Number(b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
  }
  const x = toNumericOperand(a);
  const y = toNumericOperand(b);
  if (typeof x !== 'object' && typeof y !== 'object') {
    // JavaScript compares number with bigint exactly.
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const xInfinity = infinityRank(x);
  const yInfinity = infinityRank(y);
  if (xInfinity !== 0 || yInfinity !== 0) return xInfinity - yInfinity;
  return compareDecimals(toDecimalParts(x), toDecimalParts(y));
}

function infinityRank(operand: NumericOperand): number {
  return operand === Infinity ? 1 : operand === -Infinity ? -1 : 0;
}

type NumericOperand = number | bigint | DecimalParts;

function toNumericOperand(value: unknown): NumericOperand {
  switch (typeof value) {
    case 'number':
    case 'bigint':
      return value;
    case 'boolean':
      return value ? 1 : 0;
    case 'string': {
      const parts = parseDecimal(value);
      if (parts !== undefined) return parts;
      break;
    }
  }
  // MySQL's BIT(n): an unsigned big-endian number.
  if (value instanceof Uint8Array) return value.reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);
  throw new MergeValueError(`cannot order ${showValue(value)} as a number`);
}

function toDecimalParts(operand: NumericOperand): DecimalParts {
  if (typeof operand === 'object') return operand;
  // Finite numbers print without loss of their shortest round-trip digits.
  const parts = parseDecimal(String(operand));
  if (parts === undefined) throw new MergeValueError(`cannot order ${showValue(operand)} as a number`);
  return parts;
}

// --- text and bytes --------------------------------------------------------------------

function compareText(a: unknown, b: unknown, collation: Collation): number {
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b, collation);
  if (a instanceof Uint8Array || b instanceof Uint8Array) return compareBinary(a, b);
  return compareStrings(toText(a), toText(b), collation);
}

function toText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  throw new MergeValueError(`cannot order ${showValue(value)} as text`);
}

function compareBinary(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  return Buffer.compare(toBytes(a), toBytes(b));
}

function toBytes(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  throw new MergeValueError(`cannot order ${showValue(value)} as bytes`);
}

// --- dates -----------------------------------------------------------------------------

// The zone-less text MySQL (dateStrings), MariaDB and TypeORM's SQLite columns use:
// `YYYY-MM-DD`, optionally ` HH:MM[:SS[.ffffff]]` (or `T` as separator).
const NAIVE_DATETIME = /^(\d{4,}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2})(?::(\d{2})(?:\.(\d+))?)?)?$/;

function compareDates(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') {
    const x = canonicalNaiveDateTime(a);
    const y = canonicalNaiveDateTime(b);
    // Canonical naive text is fixed width up to the fraction, so code unit order is time order.
    if (x !== undefined && y !== undefined) return x < y ? -1 : x > y ? 1 : 0;
  }
  const x = toEpochMillis(a);
  const y = toEpochMillis(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function canonicalNaiveDateTime(text: string): string | undefined {
  const match = NAIVE_DATETIME.exec(text);
  if (match === null) return undefined;
  const fraction = (match[4] ?? '').replace(/0+$/, '');
  return `${match[1]} ${match[2] ?? '00:00'}:${match[3] ?? '00'}${fraction === '' ? '' : `.${fraction}`}`;
}

/**
 * Milliseconds since the epoch. A zone-less string is read in the local zone, as mysql2
 * (timezone 'local', its default) builds `Date`s; an invalid date (MySQL's zero date)
 * is the earliest time.
 */
function toEpochMillis(value: unknown): number {
  let millis: number;
  if (value instanceof Date) millis = value.getTime();
  else if (typeof value === 'number') millis = value;
  else if (typeof value === 'string') millis = parseDateText(value);
  else throw new MergeValueError(`cannot order ${showValue(value)} as a date`);
  return Number.isNaN(millis) ? -Infinity : millis;
}

function parseDateText(text: string): number {
  const naive = canonicalNaiveDateTime(text);
  if (naive === undefined) {
    const millis = Date.parse(text);
    if (Number.isNaN(millis)) throw new MergeValueError(`cannot order ${showValue(text)} as a date`);
    return millis;
  }
  const [y, mo, d, h, mi, s] = naive.split(/[- :.]/, 6).map(Number);
  const fraction = naive.length > 19 ? Number(`0${naive.slice(19)}`) : 0;
  return new Date(y ?? 0, (mo ?? 1) - 1, d ?? 1, h ?? 0, mi ?? 0, s ?? 0, Math.floor(fraction * 1000)).getTime();
}

// --- auto ------------------------------------------------------------------------------

type ValueClass = 'numeric' | 'text' | 'bytes' | 'date';

const CLASS_RANK: Record<ValueClass, number> = { numeric: 0, date: 1, text: 2, bytes: 3 };

function classOf(value: unknown): ValueClass {
  switch (typeof value) {
    case 'number':
    case 'bigint':
    case 'boolean':
      return 'numeric';
    case 'string':
      return 'text';
  }
  if (value instanceof Date) return 'date';
  if (value instanceof Uint8Array) return 'bytes';
  throw new MergeValueError(`cannot order ${showValue(value)}: unsupported value type`);
}

function compareAuto(a: unknown, b: unknown, collation: Collation): number {
  const x = classOf(a);
  const y = classOf(b);
  if ((x === 'date' || y === 'date') && x !== 'bytes' && y !== 'bytes') return compareDates(a, b);
  if (x !== y) return CLASS_RANK[x] - CLASS_RANK[y];
  switch (x) {
    case 'numeric':
      return compareNumeric(a, b);
    case 'text':
      return compareStrings(a as string, b as string, collation);
    case 'bytes':
      return compareBinary(a, b);
    case 'date':
      return compareDates(a, b);
  }
}

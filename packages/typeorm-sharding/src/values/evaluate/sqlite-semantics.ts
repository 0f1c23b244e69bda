/**
 * SQLite expression semantics: values carry their storage class (INTEGER, REAL, TEXT, BLOB);
 * INTEGER arithmetic stays exact and becomes REAL on overflow, `/` of two integers
 * truncates, `%` works on integers, comparisons order NULL < numbers < text < blobs, and
 * a column's affinity converts the other side of a comparison. The merge reads integers as
 * `bigint` (the shards are queried with better-sqlite3's safe integers when an expression
 * is evaluated) so that an INTEGER and a REAL of the same value can be told apart.
 */
import type { ValueSlot } from '../../parameterize/index.js';
import { compareCodePoints } from '../collation.js';
import { MergeValueError, showValue, uncomparable } from '../value-error.js';
import type { ConstantLeaf, LeafType } from './expression.js';
import type { Semantics, StaticType } from './semantics.js';
import { int, real, text, type SqlValue, type Truth } from './sql-value.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const inInt64 = (v: bigint): boolean => v >= INT64_MIN && v <= INT64_MAX;

/** Text used as a number, as `CAST(x AS NUMERIC)`: its numeric prefix, INTEGER when it is one. */
function textToNumber(s: string): SqlValue {
  const m = /^\s*([+-]?)(\d+)(\.\d*)?([eE][+-]?\d+)?/.exec(s) ?? /^\s*([+-]?)()(\.\d+)([eE][+-]?\d+)?/.exec(s);
  if (!m) return int(0n);
  if (m[3] === undefined && m[4] === undefined) {
    const v = BigInt(`${m[1]}${m[2]}`);
    return inInt64(v) ? int(v) : real(Number(v));
  }
  return real(Number(m[0]));
}

function numeric(v: SqlValue): SqlValue {
  if (v === null) return null;
  if (v.t === 'text') return textToNumber(v.v);
  if (v.t === 'other') throw new MergeValueError(`cannot compute with ${showValue(v.v)}`);
  return v;
}

const asNumber = (v: SqlValue): number => (v === null ? NaN : v.t === 'int' ? Number(v.v) : Number((v as { v: unknown }).v));

function arithmetic(op: string, a: SqlValue, b: SqlValue | undefined): SqlValue {
  const x = numeric(a);
  if (b === undefined) {
    if (x === null) return null;
    if (x.t === 'int') return x.v === INT64_MIN ? real(-Number(x.v)) : int(-x.v);
    return real(-asNumber(x));
  }
  const y = numeric(b);
  if (x === null || y === null) return null;
  if (op === '%' || op === 'MOD') {
    // `%` casts both sides to INTEGER; the result is REAL when either side was.
    const i = x.t === 'int' ? x.v : BigInt(Math.trunc(asNumber(x)));
    const j = y.t === 'int' ? y.v : BigInt(Math.trunc(asNumber(y)));
    if (j === 0n) return null;
    const r = i % j;
    return x.t === 'int' && y.t === 'int' ? int(r) : real(Number(r));
  }
  if (x.t === 'int' && y.t === 'int') {
    let r: bigint;
    switch (op) {
      case '+':
        r = x.v + y.v;
        break;
      case '-':
        r = x.v - y.v;
        break;
      case '*':
        r = x.v * y.v;
        break;
      case '/':
        if (y.v === 0n) return null;
        r = x.v / y.v;
        break;
      default:
        throw new MergeValueError(`SQLite has no operator ${op}`);
    }
    return inInt64(r) ? int(r) : real(Number(r));
  }
  const p = asNumber(x);
  const q = asNumber(y);
  switch (op) {
    case '+':
      return real(p + q);
    case '-':
      return real(p - q);
    case '*':
      return real(p * q);
    case '/':
      return q === 0 ? null : real(p / q);
    default:
      throw new MergeValueError(`SQLite has no operator ${op}`);
  }
}

const CLASS_RANK = { int: 0, real: 0, dec: 0, text: 1, other: 2 } as const;

function compare(a: SqlValue, b: SqlValue): number | null {
  if (a === null || b === null) return null;
  const ra = CLASS_RANK[a.t];
  const rb = CLASS_RANK[b.t];
  if (ra !== rb) return ra - rb;
  if (a.t === 'text' && b.t === 'text') return compareCodePoints(a.v, b.v);
  if (ra === 2) {
    const x = (a as { v: unknown }).v;
    const y = (b as { v: unknown }).v;
    if (x instanceof Uint8Array && y instanceof Uint8Array) return Buffer.compare(x, y);
    throw uncomparable(x, y);
  }
  // Numbers: bigint and number compare exactly in JavaScript.
  const x = a.t === 'int' ? a.v : asNumber(a);
  const y = b.t === 'int' ? b.v : asNumber(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function truth(a: SqlValue): Truth {
  const v = numeric(a);
  if (v === null) return null;
  return v.t === 'int' ? v.v !== 0n : asNumber(v) !== 0;
}

function fromRow(value: unknown, type: LeafType): SqlValue {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'bigint':
      return int(value);
    case 'number':
      // Read with safe integers, a number is a REAL; a COUNT computed by the merge is an INTEGER.
      return type.class === 'int' && Number.isInteger(value) ? int(BigInt(value)) : real(value);
    case 'string':
      return text(value);
    case 'boolean':
      return int(value ? 1n : 0n);
    default:
      return { t: 'other', v: value };
  }
}

/** A literal is typed by its text; a `?` as better-sqlite3 binds it (a JavaScript number is a REAL, a bigint an INTEGER). */
function fromSlot(slot: ValueSlot): SqlValue {
  const v = slot.value;
  if (v === null || v === undefined) return null;
  if (slot.isNumericLiteral) return literalNumber(String(v));
  if (slot.paramIndex === undefined) return typeof v === 'string' ? text(v) : { t: 'other', v };
  switch (typeof v) {
    case 'number':
      return real(v);
    case 'boolean':
      return real(v ? 1 : 0);
    case 'bigint':
      return int(v);
    case 'string':
      return text(v);
    default:
      return { t: 'other', v };
  }
}

function literalNumber(s: string): SqlValue {
  if (/^[+-]?\d+$/.test(s)) {
    const v = BigInt(s);
    return inInt64(v) ? int(v) : real(Number(s));
  }
  return real(Number(s));
}

function fromConstant(c: ConstantLeaf): SqlValue {
  if (c.value === null) return null;
  if (typeof c.value === 'boolean') return int(c.value ? 1n : 0n);
  if (c.numeric || typeof c.value === 'number') return literalNumber(String(c.value));
  return text(c.value);
}

function call(name: string, args: readonly SqlValue[]): SqlValue | undefined {
  const [a, b] = args;
  switch (name) {
    case 'ABS': {
      const x = numeric(a ?? null);
      if (x === null) return null;
      if (x.t === 'int') {
        if (x.v === INT64_MIN) throw new MergeValueError('integer overflow');
        return int(x.v < 0n ? -x.v : x.v);
      }
      return real(Math.abs(asNumber(x)));
    }
    case 'ROUND': {
      const x = numeric(a ?? null);
      if (x === null || (args.length > 1 && b === null)) return null;
      const digits = args.length > 1 ? Math.max(0, Math.min(30, Math.trunc(asNumber(numeric(b!))))) : 0;
      const r = asNumber(x);
      // Half away from zero on the exact binary value (toFixed rounds the exact value, ties up in magnitude).
      if (digits === 0) return real(Math.sign(r) * Math.floor(Math.abs(r) + 0.5));
      return real(Number(r.toFixed(digits)));
    }
    default:
      return undefined;
  }
}

function staticOf(value: SqlValue | LeafType): StaticType {
  if (value === null) return { c: 'null', scale: 0 };
  if ('class' in value) return { c: 'other', scale: 0 };
  return { c: value.t, scale: 0 };
}

function toDriver(value: SqlValue): unknown {
  if (value === null) return null;
  // TypeORM reads SQLite without safe integers: INTEGER values come back as numbers.
  return value.t === 'int' ? Number(value.v) : value.v;
}

/**
 * A REAL as SQLite writes it as text (`printf('%!.15g')`): 15 significant digits, always a
 * decimal point (`5.0`, `1.0e+20`).
 */
function realText(v: number): string {
  if (!Number.isFinite(v)) return v > 0 ? 'Inf' : v < 0 ? '-Inf' : '';
  if (v === 0) return '0.0';
  const exponent = Math.floor(Math.log10(Math.abs(Number(v.toPrecision(15)))));
  if (exponent < -4 || exponent >= 15) {
    const [mantissa, power] = v.toExponential(14).split('e') as [string, string];
    const trimmed = mantissa.replace(/0+$/, '').replace(/\.$/, '.0');
    const sign = power.startsWith('-') ? '-' : '+';
    return `${trimmed}e${sign}${power.replace(/^[+-]/, '').padStart(2, '0')}`;
  }
  const text = String(Number(v.toPrecision(15)));
  return text.includes('.') ? text : `${text}.0`;
}

function asText(v: SqlValue): string | null {
  if (v === null) return null;
  switch (v.t) {
    case 'int':
      return v.v.toString();
    case 'real':
      return realText(v.v);
    case 'text':
      return v.v;
    default:
      return v.v instanceof Uint8Array ? Buffer.from(v.v).toString('utf8') : String(v.v);
  }
}

/** SQLite semantics. */
export const SQLITE_SEMANTICS: Semantics = {
  fromRow,
  fromSlot,
  fromConstant,
  arithmetic,
  compare,
  truth,
  fromTruth: (t) => (t === null ? null : int(t ? 1n : 0n)),
  pipes: 'concat',
  concat: (a, b) => {
    const x = asText(a);
    const y = asText(b);
    return x === null || y === null ? null : text(x + y);
  },
  call,
  staticOf,
  unify: (value) => value,
  toDriver,
};

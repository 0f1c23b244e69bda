/**
 * MySQL / MariaDB expression semantics, as the server computes: exact DECIMAL arithmetic
 * (division keeps whole 9-digit words internally and is rounded half up to
 * `scale(dividend) + div_precision_increment` digits on the way out), BIGINT arithmetic
 * that fails on overflow, DOUBLE as soon as a double or a string takes part, comparisons of
 * numbers with strings as doubles.
 */
import type { ValueSlot } from '../../parameterize/index.js';
import { compareCodePoints } from '../collation.js';
import { formatDecimal, parseScaledDecimal, toScaledDecimal, type ScaledDecimal } from '../decimal.js';
import { MergeValueError, showValue, uncomparable } from '../value-error.js';
import * as D from './decimal-math.js';
import type { ConstantLeaf, LeafType } from './expression.js';
import type { Semantics, StaticType } from './semantics.js';
import { dec, int, isNumber, real, text, type SqlValue, type Truth } from './sql-value.js';

/** MySQL's `div_precision_increment` (its default; the server setting is not read). */
const DIV_PRECISION_INCREMENT = 4;
/** Largest scale a DECIMAL result is declared with. */
const MAX_SCALE = 38;
/** Digits per word of MySQL's decimal type: divisions keep whole words. */
const DIGITS_PER_WORD = 9;

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

/** A numeric literal's text as the server types it: integer, DECIMAL (a point) or DOUBLE (an exponent). */
function numericText(textValue: string): SqlValue {
  const t = textValue.trim();
  if (/[eE]/.test(t)) return real(Number(t));
  if (/^[+-]?\d+$/.test(t)) {
    const v = BigInt(t);
    // Integer literals beyond 64 bits are DECIMAL.
    return v >= INT64_MIN && v <= UINT64_MAX ? int(v) : dec({ unscaled: v, scale: 0 });
  }
  const d = parseScaledDecimal(t);
  if (d === undefined) return text(t);
  return dec(d);
}

/** A string used as a number: its longest numeric prefix as a double (`'12abc'` is 12), as MySQL converts. */
function stringToDouble(s: string): number {
  const m = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.exec(s);
  return m ? Number(m[0]) : 0;
}

function toDouble(v: SqlValue): number {
  if (v === null) return NaN;
  switch (v.t) {
    case 'int':
      return Number(v.v);
    case 'dec':
      return D.toDouble(v.v);
    case 'real':
      return v.v;
    case 'text':
      return stringToDouble(v.v);
    case 'other':
      throw new MergeValueError(`cannot compute with ${showValue(v.v)}`);
  }
}

function toDecimal(v: SqlValue): ScaledDecimal {
  if (v === null) throw new MergeValueError('internal: NULL reached decimal arithmetic');
  if (v.t === 'int') return { unscaled: v.v, scale: 0 };
  if (v.t === 'dec') return v.v;
  throw new MergeValueError(`cannot compute ${showValue((v as { v: unknown }).v)} as a DECIMAL`);
}

function declaredScale(v: SqlValue): number {
  return v !== null && v.t === 'dec' ? v.scale : 0;
}

function checkedInt(v: bigint, what: string): SqlValue {
  if (v < INT64_MIN || v > UINT64_MAX) throw new MergeValueError(`BIGINT value is out of range in '${what}'`);
  return int(v);
}

/** The class arithmetic runs in: DOUBLE if a double or a string takes part, else DECIMAL if a decimal does, else integer. */
function arithmeticClass(a: SqlValue, b: SqlValue): 'int' | 'dec' | 'real' {
  const classes = [a, b].map((v) => (v === null ? 'int' : v.t));
  if (classes.includes('other')) throw new MergeValueError('cannot compute with a date or byte value');
  if (classes.includes('real') || classes.includes('text')) return 'real';
  return classes.includes('dec') ? 'dec' : 'int';
}

function arithmetic(op: string, a: SqlValue, b: SqlValue | undefined): SqlValue {
  if (b === undefined) {
    if (a === null) return null;
    if (a.t === 'int') return checkedInt(-a.v, '-');
    if (a.t === 'dec') return dec(D.negate(a.v), a.scale);
    return real(-toDouble(a));
  }
  if (a === null || b === null) return null;
  const kind = arithmeticClass(a, b);
  if (kind === 'real') {
    const x = toDouble(a);
    const y = toDouble(b);
    switch (op) {
      case '+':
        return real(x + y);
      case '-':
        return real(x - y);
      case '*':
        return real(x * y);
      case '/':
        return y === 0 ? null : real(x / y);
      case 'DIV':
        return y === 0 ? null : checkedInt(BigInt(Math.trunc(x / y)), 'DIV');
      case '%':
      case 'MOD':
        return y === 0 ? null : real(x % y);
    }
  }
  if (kind === 'int' && op !== '/') {
    const x = (a as { v: bigint }).v;
    const y = (b as { v: bigint }).v;
    switch (op) {
      case '+':
        return checkedInt(x + y, '+');
      case '-':
        return checkedInt(x - y, '-');
      case '*':
        return checkedInt(x * y, '*');
      case 'DIV':
        return y === 0n ? null : int(x / y);
      case '%':
      case 'MOD':
        return y === 0n ? null : int(x % y);
    }
  }
  const x = toDecimal(a);
  const y = toDecimal(b);
  switch (op) {
    case '+':
      return dec(D.add(x, y), Math.max(declaredScale(a), declaredScale(b)));
    case '-':
      return dec(D.subtract(x, y), Math.max(declaredScale(a), declaredScale(b)));
    case '*':
      return dec(D.multiply(x, y), Math.min(declaredScale(a) + declaredScale(b), MAX_SCALE));
    case '/': {
      if (D.isZero(y)) return null;
      // The server keeps the quotient to whole 9-digit words, truncated; it is rounded to the declared scale only on output.
      const words = Math.ceil((x.scale + y.scale + DIV_PRECISION_INCREMENT) / DIGITS_PER_WORD);
      return dec(D.divideTruncated(x, y, words * DIGITS_PER_WORD), Math.min(declaredScale(a) + DIV_PRECISION_INCREMENT, MAX_SCALE));
    }
    case 'DIV':
      return D.isZero(y) ? null : checkedInt(D.integerDivide(x, y), 'DIV');
    case '%':
    case 'MOD':
      return D.isZero(y) ? null : dec(D.remainder(x, y), Math.max(declaredScale(a), declaredScale(b)));
  }
  throw new MergeValueError(`unknown operator ${op}`);
}

/** The value a decimal has on its way out of the server: rounded to its declared scale. */
function shown(v: ScaledDecimal, scale: number): ScaledDecimal {
  return D.roundHalfUp(v, scale);
}

function compare(a: SqlValue, b: SqlValue): number | null {
  if (a === null || b === null) return null;
  if (a.t === 'text' && b.t === 'text') return compareCodePoints(a.v, b.v);
  if (a.t === 'other' || b.t === 'other') {
    const x = (a as { v: unknown }).v;
    const y = (b as { v: unknown }).v;
    if (x instanceof Date && y instanceof Date) return Math.sign(x.getTime() - y.getTime());
    throw uncomparable(x, y);
  }
  if (arithmeticClass(a, b) === 'real') {
    const x = toDouble(a);
    const y = toDouble(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const x = a.t === 'dec' ? shown(a.v, a.scale) : toDecimal(a);
  const y = b.t === 'dec' ? shown(b.v, b.scale) : toDecimal(b);
  return D.compare(x, y);
}

function truth(a: SqlValue): Truth {
  if (a === null) return null;
  switch (a.t) {
    case 'int':
      return a.v !== 0n;
    case 'dec':
      return !D.isZero(a.v);
    case 'real':
      return a.v !== 0;
    case 'text':
      return stringToDouble(a.v) !== 0;
    case 'other':
      return true;
  }
}

function staticOf(value: SqlValue | LeafType): StaticType {
  if (value === null) return { c: 'null', scale: 0 };
  if ('class' in value) {
    switch (value.class) {
      case 'int':
        return { c: 'int', scale: 0 };
      case 'decimal':
        return { c: 'dec', scale: value.scale ?? 0 };
      case 'real':
      case 'number':
        return { c: 'real', scale: 0 };
      case 'text':
        return { c: 'text', scale: 0 };
      default:
        return { c: 'other', scale: 0 };
    }
  }
  return { c: value.t, scale: value.t === 'dec' ? value.scale : 0 };
}

function unify(value: SqlValue, type: StaticType): SqlValue {
  if (value === null) return null;
  switch (type.c) {
    case 'dec':
      return value.t === 'int' || value.t === 'dec' ? dec(toDecimal(value), type.scale) : value;
    case 'real':
      return isNumber(value) || value.t === 'text' ? real(toDouble(value)) : value;
    case 'text':
      return isNumber(value) ? text(formatNumber(value)) : value;
    default:
      return value;
  }
}

function formatNumber(v: SqlValue): string {
  if (v === null) return '';
  if (v.t === 'int') return v.v.toString();
  if (v.t === 'dec') return formatDecimal(shown(v.v, v.scale));
  return String((v as { v: unknown }).v);
}

function fromRow(value: unknown, type: LeafType): SqlValue {
  if (value === null || value === undefined) return null;
  if (value instanceof Date || value instanceof Uint8Array) return { t: 'other', v: value };
  switch (type.class) {
    case 'int':
    case 'decimal': {
      if (typeof value === 'bigint') return type.class === 'int' ? int(value) : dec({ unscaled: value, scale: 0 }, type.scale ?? 0);
      const d = typeof value === 'number' || typeof value === 'string' ? toScaledDecimal(value) : undefined;
      if (d === undefined) throw new MergeValueError(`cannot read ${showValue(value)} as a number`);
      if (type.class === 'int' && d.scale === 0) return int(d.unscaled);
      return dec(d, type.fullPrecision && type.scale !== undefined ? type.scale : Math.max(d.scale, type.scale ?? 0));
    }
    case 'real':
      return real(typeof value === 'number' ? value : Number(value));
    case 'number': {
      if (typeof value === 'number') return Number.isInteger(value) ? int(BigInt(value)) : real(value);
      if (typeof value === 'bigint') return int(value);
      const d = typeof value === 'string' ? parseScaledDecimal(value) : undefined;
      if (d === undefined) throw new MergeValueError(`cannot read ${showValue(value)} as a number`);
      return dec(d);
    }
    case 'text':
      return typeof value === 'string' ? text(value) : { t: 'other', v: value };
    case 'other':
      return { t: 'other', v: value };
    case 'auto':
      if (typeof value === 'bigint') return int(value);
      if (typeof value === 'number') return Number.isInteger(value) ? int(BigInt(value)) : real(value);
      if (typeof value === 'string') return text(value);
      return { t: 'other', v: value };
  }
}

/**
 * A `?` parameter as mysql2 sends it: it interpolates values into the statement text, so a
 * number becomes a numeric literal (`1.5` a DECIMAL, `1e21` a DOUBLE), a boolean `true`/`false`.
 */
function fromSlot(slot: ValueSlot): SqlValue {
  const v = slot.value;
  if (v === null || v === undefined) return null;
  if (slot.isNumericLiteral) return numericText(String(v));
  if (slot.paramIndex === undefined) return typeof v === 'string' ? text(v) : { t: 'other', v };
  switch (typeof v) {
    case 'number':
      return Number.isFinite(v) ? numericText(String(v)) : null;
    case 'bigint':
      return int(v);
    case 'boolean':
      return int(v ? 1n : 0n);
    case 'string':
      return text(v);
    default:
      return { t: 'other', v };
  }
}

function fromConstant(c: ConstantLeaf): SqlValue {
  if (c.value === null) return null;
  if (typeof c.value === 'boolean') return int(c.value ? 1n : 0n);
  if (c.numeric || typeof c.value === 'number') return numericText(String(c.value));
  return text(c.value);
}

function call(name: string, args: readonly SqlValue[], literalArgs: readonly (SqlValue | undefined)[]): SqlValue | undefined {
  const [a, b] = args;
  switch (name) {
    case 'ABS':
      if (a === null || a === undefined) return null;
      if (a.t === 'int') return checkedInt(a.v < 0n ? -a.v : a.v, 'ABS');
      if (a.t === 'dec') return dec(a.v.unscaled < 0n ? D.negate(a.v) : a.v, a.scale);
      return real(Math.abs(toDouble(a)));
    case 'FLOOR':
    case 'CEIL':
    case 'CEILING': {
      if (a === null || a === undefined) return null;
      if (a.t === 'int') return a;
      if (a.t === 'dec') return int(name === 'FLOOR' ? D.floor(a.v) : D.ceil(a.v));
      return real(name === 'FLOOR' ? Math.floor(toDouble(a)) : Math.ceil(toDouble(a)));
    }
    case 'MOD':
      return arithmetic('MOD', a ?? null, b ?? null);
    case 'ROUND': {
      if (a === null || a === undefined) return null;
      const digitsValue = literalArgs[1] ?? b;
      if (args.length > 1 && (digitsValue === null || digitsValue === undefined)) return null;
      const digits = args.length > 1 ? Number(toDecimal(digitsValue!).unscaled) : 0;
      if (a.t === 'int') {
        if (digits >= 0) return a;
        const rounded = D.roundHalfUp({ unscaled: a.v, scale: 0 }, digits < -38 ? -38 : digits);
        return int(rounded.unscaled);
      }
      if (a.t === 'dec') {
        const value = shown(a.v, a.scale);
        if (digits >= 0) return dec(D.roundHalfUp(value, Math.min(digits, MAX_SCALE)), Math.min(digits, MAX_SCALE));
        const factor = 10n ** BigInt(-digits);
        const q = D.roundHalfUp({ unscaled: value.unscaled, scale: value.scale - digits }, 0).unscaled;
        return dec({ unscaled: q * factor, scale: 0 }, 0);
      }
      // ROUND of a DOUBLE follows the server's own floating-point routine; the plan does not send it here.
      throw new MergeValueError('ROUND of a floating-point value is not evaluated by the merge');
    }
    default:
      return undefined;
  }
}

function toDriver(value: SqlValue, hint: unknown): unknown {
  if (value === null) return null;
  switch (value.t) {
    case 'int':
      if (typeof hint === 'string') return value.v.toString();
      if (typeof hint === 'bigint') return value.v;
      if (typeof hint === 'number') return Number(value.v);
      // No shard returned a value for this column: mysql2's default (numbers up to 2^53; beyond, text).
      return Number.isSafeInteger(Number(value.v)) ? Number(value.v) : value.v.toString();
    case 'dec': {
      const out = formatDecimal(shown(value.v, typeof hint === 'string' ? decimalsOf(hint, value.scale) : value.scale));
      return typeof hint === 'number' ? Number(out) : out;
    }
    case 'real':
      return value.v;
    case 'text':
    case 'other':
      return value.v;
  }
}

/** Fraction digits of a decimal string the driver returned (`'6.0000'` → 4). */
function decimalsOf(sample: string, fallback: number): number {
  const point = sample.indexOf('.');
  if (!/^-?\d+(\.\d+)?$/.test(sample)) return fallback;
  return point < 0 ? 0 : sample.length - point - 1;
}

/** MySQL / MariaDB semantics. */
export const MYSQL_SEMANTICS: Semantics = {
  fromRow,
  fromSlot,
  fromConstant,
  arithmetic,
  compare,
  truth,
  fromTruth: (t) => (t === null ? null : int(t ? 1n : 0n)),
  pipes: 'or',
  concat: () => {
    throw new MergeValueError('MySQL reads || as OR');
  },
  call,
  staticOf,
  unify,
  toDriver,
};

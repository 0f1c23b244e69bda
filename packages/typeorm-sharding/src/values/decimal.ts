/**
 * Exact decimal arithmetic on the strings drivers return for DECIMAL and BIGINT
 * (mysql2 hands both back as text). Comparison works on the digit strings directly;
 * sums and averages use `bigint` with an explicit scale. No float rounding anywhere.
 */

/** A decimal number normalised for comparison. Zero is `{ negative: false, int: '', frac: '' }`. */
export interface DecimalParts {
  readonly negative: boolean;
  /** Integer digits without leading zeros (`''` when the magnitude is below 1). */
  readonly int: string;
  /** Fraction digits without trailing zeros. */
  readonly frac: string;
}

/** A decimal as an unscaled integer and a scale: `{ unscaled: 1250n, scale: 2 }` is `12.50`. */
export interface ScaledDecimal {
  readonly unscaled: bigint;
  /** Digits after the decimal point, never negative; trailing zeros count (`12.50` has scale 2). */
  readonly scale: number;
}

const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

// Exponents beyond any double (1e308) are not values a database returns; refusing them
// keeps a hostile string from allocating megabytes of zeros.
const MAX_EXPONENT = 400;

interface RawDecimal {
  readonly negative: boolean;
  readonly int: string;
  readonly frac: string;
  readonly exponent: number;
}

function readDecimal(text: string): RawDecimal | undefined {
  const match = DECIMAL_TEXT.exec(text);
  if (match === null) return undefined;
  const int = match[2] ?? '';
  const frac = match[3] ?? '';
  if (int === '' && frac === '') return undefined;
  const exponent = match[4] === undefined ? 0 : Number(match[4]);
  if (Math.abs(exponent) > MAX_EXPONENT) return undefined;
  return { negative: match[1] === '-', int, frac, exponent };
}

/**
 * Parses decimal text (`'-12.50'`, `'18446744073709551615'`, `'1.5e-7'`, `'.5'`) for
 * {@link compareDecimals}; `undefined` when the text is not a decimal number.
 */
export function parseDecimal(text: string): DecimalParts | undefined {
  const raw = readDecimal(text);
  if (raw === undefined) return undefined;
  let { int, frac } = raw;
  if (raw.exponent !== 0) {
    const digits = int + frac;
    const point = int.length + raw.exponent;
    if (point <= 0) {
      int = '';
      frac = '0'.repeat(-point) + digits;
    } else if (point >= digits.length) {
      int = digits + '0'.repeat(point - digits.length);
      frac = '';
    } else {
      int = digits.slice(0, point);
      frac = digits.slice(point);
    }
  }
  int = stripLeadingZeros(int);
  frac = stripTrailingZeros(frac);
  return { negative: raw.negative && (int !== '' || frac !== ''), int, frac };
}

/** Exact numeric order of two parsed decimals: negative, zero or positive like `a - b`. */
export function compareDecimals(a: DecimalParts, b: DecimalParts): number {
  if (a.negative !== b.negative) return a.negative ? -1 : 1;
  const magnitude = compareMagnitudes(a, b);
  // `0 - 0` would be -0: equal values compare as exactly 0.
  return a.negative && magnitude !== 0 ? -magnitude : magnitude;
}

function compareMagnitudes(a: DecimalParts, b: DecimalParts): number {
  if (a.int.length !== b.int.length) return a.int.length < b.int.length ? -1 : 1;
  if (a.int !== b.int) return a.int < b.int ? -1 : 1;
  // Without trailing zeros, digit strings of fractions order like the fractions.
  if (a.frac !== b.frac) return a.frac < b.frac ? -1 : 1;
  return 0;
}

function stripLeadingZeros(digits: string): string {
  let i = 0;
  while (i < digits.length && digits.charCodeAt(i) === 48) i++;
  return i === 0 ? digits : digits.slice(i);
}

function stripTrailingZeros(digits: string): string {
  let end = digits.length;
  while (end > 0 && digits.charCodeAt(end - 1) === 48) end--;
  return end === digits.length ? digits : digits.slice(0, end);
}

/**
 * Parses decimal text keeping its written scale (`'12.50'` → scale 2), for sums that must
 * come back in the driver's representation. `undefined` when the text is not a number.
 */
export function parseScaledDecimal(text: string): ScaledDecimal | undefined {
  const raw = readDecimal(text);
  if (raw === undefined) return undefined;
  let unscaled = BigInt(raw.int + raw.frac || '0');
  let scale = raw.frac.length - raw.exponent;
  if (scale < 0) {
    unscaled *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { unscaled: raw.negative ? -unscaled : unscaled, scale };
}

/** A finite number, bigint or decimal text as a {@link ScaledDecimal}; `undefined` otherwise. */
export function toScaledDecimal(value: number | bigint | string): ScaledDecimal | undefined {
  if (typeof value === 'bigint') return { unscaled: value, scale: 0 };
  if (typeof value === 'string') return parseScaledDecimal(value);
  if (Number.isInteger(value)) return { unscaled: BigInt(value), scale: 0 };
  // String(n) is the shortest text that reads back as n: the value the user sees.
  return Number.isFinite(value) ? parseScaledDecimal(String(value)) : undefined;
}

/** Exact sum; the scale is the larger of the two, as SQL's DECIMAL addition does. */
export function addDecimals(a: ScaledDecimal, b: ScaledDecimal): ScaledDecimal {
  const scale = Math.max(a.scale, b.scale);
  return { unscaled: rescale(a, scale) + rescale(b, scale), scale };
}

function rescale(d: ScaledDecimal, scale: number): bigint {
  return d.scale === scale ? d.unscaled : d.unscaled * 10n ** BigInt(scale - d.scale);
}

/**
 * `dividend / divisor` with `extraScale` more fraction digits than the dividend, rounded
 * half away from zero: how MySQL computes `AVG(DECIMAL)` (extraScale =
 * `div_precision_increment`, 4 by default). The divisor must not be zero.
 */
export function divideDecimal(dividend: ScaledDecimal, divisor: bigint, extraScale: number): ScaledDecimal {
  const negative = dividend.unscaled < 0n !== divisor < 0n;
  const numerator = abs(dividend.unscaled) * 10n ** BigInt(extraScale);
  const denominator = abs(divisor);
  let quotient = numerator / denominator;
  if ((numerator % denominator) * 2n >= denominator) quotient += 1n;
  return { unscaled: negative ? -quotient : quotient, scale: dividend.scale + extraScale };
}

function abs(n: bigint): bigint {
  return n < 0n ? -n : n;
}

/** Plain decimal text of a scaled decimal, e.g. `'-0.050'`; never exponent notation. */
export function formatDecimal(d: ScaledDecimal): string {
  const negative = d.unscaled < 0n;
  const digits = abs(d.unscaled).toString();
  if (d.scale === 0) return negative ? `-${digits}` : digits;
  const padded = digits.padStart(d.scale + 1, '0');
  const point = padded.length - d.scale;
  return `${negative ? '-' : ''}${padded.slice(0, point)}.${padded.slice(point)}`;
}

/**
 * The exact value of a finite double as a scaled decimal (every double is a dyadic
 * fraction m·2^e, so its decimal expansion is finite). Sums of such values are exact, and
 * `Number()` of the total's text rounds it once, correctly.
 */
export function exactDouble(value: number): ScaledDecimal {
  if (Number.isInteger(value)) return { unscaled: BigInt(value), scale: 0 };
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const bits = view.getBigUint64(0);
  const exponentBits = Number((bits >> 52n) & 0x7ffn);
  let mantissa = bits & 0xfffffffffffffn;
  if (exponentBits === 0) mantissa <<= 1n;
  else mantissa |= 1n << 52n;
  // value = ±mantissa · 2^(exponent − 1075); for a non-integer the power is negative.
  const shift = 1075 - (exponentBits === 0 ? 1 : exponentBits);
  const unscaled = mantissa * 5n ** BigInt(shift);
  return { unscaled: value < 0 ? -unscaled : unscaled, scale: shift };
}

/**
 * Exact arithmetic on scaled decimals (`unscaled / 10^scale`), as MySQL's DECIMAL type
 * computes: no binary floating point anywhere.
 */
import type { ScaledDecimal } from '../decimal.js';

const abs = (n: bigint): bigint => (n < 0n ? -n : n);
const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** `d` written with `scale` fraction digits (more digits: exact; fewer: see round / truncate). */
function at(d: ScaledDecimal, scale: number): bigint {
  return scale >= d.scale ? d.unscaled * pow10(scale - d.scale) : d.unscaled / pow10(d.scale - scale);
}

export function negate(d: ScaledDecimal): ScaledDecimal {
  return { unscaled: -d.unscaled, scale: d.scale };
}

export function add(a: ScaledDecimal, b: ScaledDecimal): ScaledDecimal {
  const scale = Math.max(a.scale, b.scale);
  return { unscaled: at(a, scale) + at(b, scale), scale };
}

export function subtract(a: ScaledDecimal, b: ScaledDecimal): ScaledDecimal {
  return add(a, negate(b));
}

export function multiply(a: ScaledDecimal, b: ScaledDecimal): ScaledDecimal {
  return { unscaled: a.unscaled * b.unscaled, scale: a.scale + b.scale };
}

export function isZero(d: ScaledDecimal): boolean {
  return d.unscaled === 0n;
}

/** Exact order: negative, zero or positive like `a - b`. */
export function compare(a: ScaledDecimal, b: ScaledDecimal): number {
  const scale = Math.max(a.scale, b.scale);
  const x = at(a, scale);
  const y = at(b, scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** `a / b` truncated toward zero at `scale` fraction digits; `b` must not be zero. */
export function divideTruncated(a: ScaledDecimal, b: ScaledDecimal, scale: number): ScaledDecimal {
  // a/b = (ua / 10^sa) / (ub / 10^sb); scaled by 10^scale: ua * 10^(scale + sb - sa) / ub.
  const shift = scale + b.scale - a.scale;
  const numerator = shift >= 0 ? a.unscaled * pow10(shift) : a.unscaled;
  const denominator = shift >= 0 ? b.unscaled : b.unscaled * pow10(-shift);
  return { unscaled: numerator / denominator, scale };
}

/** Rounded half away from zero to `scale` fraction digits (MySQL's ROUND and its output of DECIMAL results). */
export function roundHalfUp(d: ScaledDecimal, scale: number): ScaledDecimal {
  if (scale >= d.scale) return { unscaled: at(d, scale), scale };
  const divisor = pow10(d.scale - scale);
  let q = abs(d.unscaled) / divisor;
  if ((abs(d.unscaled) % divisor) * 2n >= divisor) q += 1n;
  return { unscaled: d.unscaled < 0n ? -q : q, scale };
}

/** Truncated toward zero to `scale` fraction digits. */
export function truncate(d: ScaledDecimal, scale: number): ScaledDecimal {
  return { unscaled: at(d, scale), scale };
}

/** The largest integer not above `d`. */
export function floor(d: ScaledDecimal): bigint {
  const q = at(d, 0);
  return d.unscaled < 0n && q * pow10(d.scale) !== d.unscaled ? q - 1n : q;
}

/** The smallest integer not below `d`. */
export function ceil(d: ScaledDecimal): bigint {
  const q = at(d, 0);
  return d.unscaled > 0n && q * pow10(d.scale) !== d.unscaled ? q + 1n : q;
}

/** `a mod b` with the sign of `a` (SQL's `%`); `b` must not be zero. */
export function remainder(a: ScaledDecimal, b: ScaledDecimal): ScaledDecimal {
  const scale = Math.max(a.scale, b.scale);
  return { unscaled: at(a, scale) % at(b, scale), scale };
}

/** The integer part of `a / b`, truncated toward zero (`DIV`); `b` must not be zero. */
export function integerDivide(a: ScaledDecimal, b: ScaledDecimal): bigint {
  return divideTruncated(a, b, 0).unscaled;
}

/** The double nearest to `d` (through its decimal text, which `Number` rounds correctly). */
export function toDouble(d: ScaledDecimal): number {
  if (d.scale === 0) return Number(d.unscaled);
  const digits = abs(d.unscaled).toString().padStart(d.scale + 1, '0');
  return Number(`${d.unscaled < 0n ? '-' : ''}${digits.slice(0, -d.scale)}.${digits.slice(-d.scale)}`);
}

import { formatDecimal, parseScaledDecimal, type ScaledDecimal } from '../values/decimal.js';

/** Fraction digits of a decimal text (`'6.0000'` → 4), or undefined when it is not one. */
export function scaleOfText(text: string): number | undefined {
  if (!/^-?\d+(\.\d+)?$/.test(text)) return undefined;
  const point = text.indexOf('.');
  return point < 0 ? 0 : text.length - point - 1;
}

/**
 * An exact result in the JavaScript form the driver uses for its column, as shown by
 * `partial`, a value the shards returned for the same column: decimal text with the
 * partial's number of fraction digits (mysql2's DECIMAL and BIGINT), a bigint, or a number.
 */
export function representLike(total: ScaledDecimal, partial: unknown): string | number | bigint {
  if (typeof partial === 'string') {
    const scale = scaleOfText(partial);
    return formatDecimal(scale === undefined || scale === total.scale ? total : rescaled(total, scale));
  }
  if (typeof partial === 'bigint' && total.scale === 0) return total.unscaled;
  return Number(formatDecimal(total));
}

function rescaled(d: ScaledDecimal, scale: number): ScaledDecimal {
  if (scale >= d.scale) return { unscaled: d.unscaled * 10n ** BigInt(scale - d.scale), scale };
  // Fewer digits than computed: rounded half away from zero, as the server rounds DECIMAL results.
  const divisor = 10n ** BigInt(d.scale - scale);
  const magnitude = d.unscaled < 0n ? -d.unscaled : d.unscaled;
  let q = magnitude / divisor;
  if ((magnitude % divisor) * 2n >= divisor) q += 1n;
  return { unscaled: d.unscaled < 0n ? -q : q, scale };
}

/** Decimal text, a number or a bigint as a scaled decimal. */
export function exactOf(value: unknown): ScaledDecimal | undefined {
  if (typeof value === 'bigint') return { unscaled: value, scale: 0 };
  if (typeof value === 'string') return parseScaledDecimal(value);
  if (typeof value === 'number' && Number.isFinite(value)) return Number.isInteger(value) ? { unscaled: BigInt(value), scale: 0 } : parseScaledDecimal(String(value));
  if (typeof value === 'boolean') return { unscaled: value ? 1n : 0n, scale: 0 };
  return undefined;
}

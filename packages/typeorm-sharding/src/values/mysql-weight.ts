import { MergeValueError, showValue } from './value-error.js';

/**
 * Compares two MySQL/MariaDB text sort keys as the server compares the strings they were
 * computed from, under the column's collation.
 *
 * `WEIGHT_STRING(col)` alone is not enough: a PAD SPACE collation (`utf8mb4_general_ci`,
 * `utf8mb4_unicode_ci`, even `utf8mb4_bin`) compares the shorter string as if padded with
 * spaces, so `'a\t'` sorts before `'a'` (tab < space), while the weight of `'a'` is a prefix
 * of the weight of `'a\t'` and sorts first byte-wise. The key therefore carries the pad:
 *
 * ```
 * byte 0        n = length of the pad weight (0 for a NO PAD collation)
 * bytes 1..n    the weight of one space under the collation
 * bytes n+1..   WEIGHT_STRING(col) without trailing pad weights
 * ```
 *
 * The keys are compared as their weights padded with the pad weight to infinity (byte-wise
 * when n = 0). Because trailing pad weights are removed, two keys are equal exactly when
 * their bytes are, so the key also serves GROUP BY / DISTINCT equality. The plan builds
 * the key in SQL (`plan/typing/column-order.ts`); verified on MariaDB 10.11 against ORDER BY,
 * GROUP BY and MIN/MAX for general_ci, unicode_ci, unicode_520_ci, bin, nopad_bin,
 * general_nopad_ci, latin1 and TEXT columns.
 */
export function compareMysqlWeights(a: unknown, b: unknown): number {
  const x = toKey(a);
  const y = toKey(b);
  const padLength = x[0]!;
  if (padLength !== y[0]) throw new MergeValueError(`cannot order sort keys of different collations (${showValue(a)}, ${showValue(b)})`);
  const pad = x.subarray(1, 1 + padLength);
  const wx = x.subarray(1 + padLength);
  const wy = y.subarray(1 + padLength);
  const length = Math.max(wx.length, wy.length);
  for (let i = 0; i < length; i++) {
    const p = byteAt(wx, i, pad);
    const q = byteAt(wy, i, pad);
    if (p !== q) return p - q;
  }
  return 0;
}

/** The i-th byte of `weights` followed by `pad` repeated; -1 past the end when there is no pad. */
function byteAt(weights: Uint8Array, i: number, pad: Uint8Array): number {
  if (i < weights.length) return weights[i]!;
  return pad.length === 0 ? -1 : pad[(i - weights.length) % pad.length]!;
}

function toKey(value: unknown): Uint8Array {
  if (value instanceof Uint8Array && value.length > 0 && value[0]! < value.length) return value;
  throw new MergeValueError(`cannot order ${showValue(value)} as a MySQL sort key`);
}

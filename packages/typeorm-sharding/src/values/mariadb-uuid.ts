import { MergeValueError, showValue } from './value-error.js';

/**
 * Which MariaDB `UUID` storage order a column follows.
 *
 * MariaDB stores a `UUID` `llllllll-mmmm-Vhhh-vsss-nnnnnnnnnnnn` with its groups reversed
 * (`nnnnnnnnnnnn vsss Vhhh mmmm llllllll`) and orders by the stored bytes, so ORDER BY is
 * not the text order.
 * - `swap-v1-5`: MariaDB 10.10.6+, 10.11.5+, 11.0.3+, 11.1.2+, 11.2+: only UUIDs of version
 *   1–5 with a non-zero variant are reversed; the others (v6, v7, variant 0) keep text order.
 * - `swap-all`: MariaDB 10.7 to 10.11.4 reverse every UUID. Tables created by those versions
 *   keep this order after an upgrade.
 */
export type MariadbUuidOrder = 'swap-v1-5' | 'swap-all';

/** Compares two MariaDB `UUID` values (text as the server returns them) in stored order. */
export function compareMariadbUuids(a: unknown, b: unknown, order: MariadbUuidOrder): number {
  const x = storedHex(a, order);
  const y = storedHex(b, order);
  return x < y ? -1 : x > y ? 1 : 0;
}

const HYPHENS = /-/g;
const HEX32 = /^[0-9a-f]{32}$/;

/** The stored bytes of a UUID as 32 lower-case hex digits (hex order is byte order). */
function storedHex(value: unknown, order: MariadbUuidOrder): string {
  const hex = typeof value === 'string' ? value.replace(HYPHENS, '').toLowerCase() : '';
  if (!HEX32.test(hex)) throw new MergeValueError(`cannot order ${showValue(value)} as a MariaDB UUID`);
  if (order === 'swap-v1-5') {
    // The server's rule on the in-memory bytes: 0 < byte 6 < 0x60 (version 1–5) and the
    // high bit of byte 8 set (variant ≠ 0).
    const versionByte = parseInt(hex.slice(12, 14), 16);
    const variantByte = parseInt(hex.slice(16, 18), 16);
    if (!(versionByte > 0 && versionByte < 0x60 && (variantByte & 0x80) !== 0)) return hex;
  }
  return hex.slice(20, 32) + hex.slice(16, 20) + hex.slice(12, 16) + hex.slice(8, 12) + hex.slice(0, 8);
}

import { isSqlNull } from '../values/compare-values.js';
import { addDecimals, exactDouble, formatDecimal, toScaledDecimal, type ScaledDecimal } from '../values/decimal.js';
import { MergeValueError, showValue } from './merge-error.js';

/**
 * Adds partial sums or counts without losing digits and gives the total back in the
 * representation the inputs used: numbers come back as a number (the exact total of the
 * doubles, rounded once: one database's own sum rounds the whole sum about once too);
 * bigints as a bigint unless a number (a REAL) took part; decimal strings as a decimal
 * string keeping the largest scale seen (`'12.50'`).
 */
export class ExactSum {
  #seen = false;
  #representation: 'number' | 'bigint' | 'string' = 'number';
  #number = 0;
  #exact: ScaledDecimal | undefined;
  #real = false;

  /** Adds one partial; SQL NULL is skipped. */
  add(value: unknown): void {
    if (isSqlNull(value)) return;
    this.#seen = true;
    if (typeof value === 'boolean') return this.add(value ? 1 : 0);
    if (typeof value === 'number' && !Number.isFinite(value)) {
      // Infinity takes no digits: the total is a double from here on.
      this.#number += value;
      return;
    }
    const addend = typeof value === 'number' ? exactDouble(value) : typeof value === 'bigint' || typeof value === 'string' ? toScaledDecimal(value) : undefined;
    if (addend === undefined) throw new MergeValueError(`cannot add ${showValue(value)} to a sum`);
    this.#exact = addDecimals(this.#exact ?? { unscaled: 0n, scale: 0 }, addend);
    if (typeof value === 'string') this.#representation = 'string';
    else if (typeof value === 'bigint' && this.#representation === 'number' && !this.#real) this.#representation = 'bigint';
    else if (typeof value === 'number') {
      // Beside bigints (SQLite read with safe integers), a number is a REAL: so is the sum.
      this.#real = true;
      if (this.#representation === 'bigint') this.#representation = 'number';
    }
  }

  /** The total, or null when nothing but NULLs was added. */
  total(): number | bigint | string | null {
    if (!this.#seen) return null;
    const exact = this.#exact;
    if (exact === undefined) return this.#number;
    if (this.#number !== 0) return this.#number + Number(formatDecimal(exact));
    switch (this.#representation) {
      case 'string':
        return formatDecimal(exact);
      case 'bigint':
        return exact.scale === 0 ? exact.unscaled : formatDecimal(exact);
      case 'number':
        return Number(formatDecimal(exact));
    }
  }
}

import { isSqlNull } from './compare-values.js';
import { addDecimals, formatDecimal, toScaledDecimal, type ScaledDecimal } from './decimal.js';
import { MergeValueError, showValue } from './merge-error.js';

/**
 * Adds partial sums or counts without losing digits and gives the total back in the
 * widest representation the inputs used: numbers add as numbers (what SQLite does);
 * once a bigint or a decimal string arrives the total becomes exact and comes back as a
 * bigint or a decimal string keeping the largest scale seen (`'12.50'`).
 */
export class ExactSum {
  #seen = false;
  #representation: 'number' | 'bigint' | 'string' = 'number';
  #number = 0;
  #exact: ScaledDecimal | undefined;

  /** Adds one partial; SQL NULL is skipped. */
  add(value: unknown): void {
    if (isSqlNull(value)) return;
    this.#seen = true;
    if (typeof value === 'number' && this.#exact === undefined) {
      this.#number += value;
      return;
    }
    if (typeof value === 'boolean') return this.add(value ? 1 : 0);
    const addend = typeof value === 'number' || typeof value === 'bigint' || typeof value === 'string' ? toScaledDecimal(value) : undefined;
    if (addend === undefined) throw new MergeValueError(`cannot add ${showValue(value)} to a sum`);
    if (this.#exact === undefined) {
      const sofar = toScaledDecimal(this.#number);
      if (sofar === undefined) throw new MergeValueError(`cannot add ${showValue(value)} to the sum ${this.#number}`);
      this.#exact = sofar;
    }
    this.#exact = addDecimals(this.#exact, addend);
    if (typeof value === 'string') this.#representation = 'string';
    else if (typeof value === 'bigint' && this.#representation === 'number') this.#representation = 'bigint';
  }

  /** The total, or null when nothing but NULLs was added. */
  total(): number | bigint | string | null {
    if (!this.#seen) return null;
    const exact = this.#exact;
    if (exact === undefined) return this.#number;
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

/** BIT_AND / BIT_OR / BIT_XOR and the variance family, combined from per-shard partials. */
import type { AccumulatorFactories } from './accumulators.js';
import { read } from './accumulators.js';
import { isSqlNull } from '../values/compare-values.js';
import { divideDecimal, formatDecimal, type ScaledDecimal } from '../values/decimal.js';
import { MergeValueError, showValue } from './merge-error.js';
import { exactOf } from './represent-like.js';

const UINT64 = 2n ** 64n - 1n;

function bit(op: 'BIT_AND' | 'BIT_OR' | 'BIT_XOR'): AccumulatorFactories<typeof op>[typeof op] {
  return (spec) => {
    let acc = op === 'BIT_AND' ? UINT64 : 0n;
    return {
      add(row) {
        const value = read(row, spec.alias);
        if (isSqlNull(value)) return;
        const d = exactOf(value);
        if (d === undefined || d.scale !== 0) throw new MergeValueError(`cannot combine ${showValue(value)} in ${op}`);
        const v = BigInt.asUintN(64, d.unscaled);
        acc = op === 'BIT_AND' ? acc & v : op === 'BIT_OR' ? acc | v : acc ^ v;
      },
      result: (partial) => (typeof partial === 'number' ? Number(acc) : typeof partial === 'bigint' ? acc : acc.toString()),
    };
  };
}

function scaled(value: unknown): ScaledDecimal {
  const d = exactOf(value);
  if (d === undefined) throw new MergeValueError(`cannot compute a variance from ${showValue(value)}`);
  return d;
}

function align(a: ScaledDecimal, scale: number): bigint {
  return a.unscaled * 10n ** BigInt(scale - a.scale);
}

/** Significant digits kept when the exact variance is turned into a double (more than a double holds). */
const DIGITS = 40;

const variance: AccumulatorFactories<'VARIANCE'>['VARIANCE'] = (spec) => (spec.varPopAlias !== undefined ? doubleVariance(spec) : exactVariance(spec));

/** The variance of exact arguments from exact partial sums: one rounding, at the end. */
const exactVariance: AccumulatorFactories<'VARIANCE'>['VARIANCE'] = (spec) => {
  const sumAlias = spec.sumAlias!;
  const sumSquaresAlias = spec.sumSquaresAlias!;
  let n = 0n;
  let sum: ScaledDecimal = { unscaled: 0n, scale: 0 };
  let squares: ScaledDecimal = { unscaled: 0n, scale: 0 };
  const add = (a: ScaledDecimal, b: ScaledDecimal): ScaledDecimal => {
    const scale = Math.max(a.scale, b.scale);
    return { unscaled: align(a, scale) + align(b, scale), scale };
  };
  return {
    add(row) {
      const count = read(row, spec.countAlias);
      if (isSqlNull(count) || scaled(count).unscaled === 0n) return;
      n += scaled(count).unscaled;
      sum = add(sum, scaled(read(row, sumAlias)));
      squares = add(squares, scaled(read(row, sumSquaresAlias)));
    },
    result() {
      if (n === 0n || (spec.sample && n === 1n)) return null;
      // n·Σx² − (Σx)², over n² (population) or n(n − 1) (sample): exact until the one rounding to a double.
      const scale = Math.max(squares.scale, sum.scale * 2);
      const numerator = n * align(squares, scale) - align({ unscaled: sum.unscaled * sum.unscaled, scale: sum.scale * 2 }, scale);
      const denominator = spec.sample ? n * (n - 1n) : n * n;
      const value = numerator <= 0n ? 0 : Number(formatDecimal(divideDecimal({ unscaled: numerator, scale }, denominator, DIGITS)));
      const result = spec.sqrt ? Math.sqrt(value) : value;
      return spec.decimals === undefined ? result : Number(result.toFixed(spec.decimals));
    },
  };
};

/** The variance of DOUBLE arguments from each shard's count, mean and population variance (Chan et al.'s pairwise update). */
const doubleVariance: AccumulatorFactories<'VARIANCE'>['VARIANCE'] = (spec) => {
  let n = 0;
  let mean = 0;
  let m2 = 0;
  let min = Infinity;
  let max = -Infinity;
  return {
    add(row) {
      const count = read(row, spec.countAlias);
      if (isSqlNull(count)) return;
      const nb = Number(count);
      if (nb === 0) return;
      if (spec.minAlias !== undefined && spec.maxAlias !== undefined) {
        min = Math.min(min, Number(read(row, spec.minAlias)));
        max = Math.max(max, Number(read(row, spec.maxAlias)));
      }
      const meanB = Number(read(row, spec.meanAlias!));
      const m2B = Number(read(row, spec.varPopAlias!)) * nb;
      const total = n + nb;
      const delta = meanB - mean;
      mean += (delta * nb) / total;
      m2 += m2B + (delta * delta * n * nb) / total;
      n = total;
    },
    result() {
      if (n === 0 || (spec.sample && n === 1)) return null;
      const value = min === max ? 0 : Math.max(0, m2 / (spec.sample ? n - 1 : n));
      const result = spec.sqrt ? Math.sqrt(value) : value;
      return spec.decimals === undefined ? result : Number(result.toFixed(spec.decimals));
    },
  };
};

export const STATISTIC_ACCUMULATORS: AccumulatorFactories<'BIT_AND' | 'BIT_OR' | 'BIT_XOR' | 'VARIANCE'> = {
  BIT_AND: bit('BIT_AND'),
  BIT_OR: bit('BIT_OR'),
  BIT_XOR: bit('BIT_XOR'),
  VARIANCE: variance,
};

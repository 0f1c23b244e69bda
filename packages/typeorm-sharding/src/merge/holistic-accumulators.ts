/**
 * Aggregates that cannot be combined from partial results, only from the values: the
 * shards send each group's distinct values (the plan appends the aggregate's argument to
 * the GROUP BY) and the merge computes the aggregate from them.
 */
import type { Accumulator, AccumulatorFactories } from './accumulators.js';
import { read } from './accumulators.js';
import { canonicalValueKey } from './canonical-key.js';
import { createValueComparator, isSqlNull } from '../values/compare-values.js';
import { divideDecimal, formatDecimal, type ScaledDecimal } from '../values/decimal.js';
import { UnsupportedShardingError } from '../errors/index.js';
import { showValue } from './merge-error.js';
import { exactOf, representLike, scaleOfText } from './represent-like.js';
import type { Row } from './row.js';

/** Distinct non-NULL values of one column, by the key column that decides sameness. */
function distinctValues(valuesAlias: string, distinctAlias: string | undefined): { add(row: Row): void; values(): unknown[] } {
  const seen = new Map<string, unknown>();
  return {
    add(row) {
      const value = read(row, valuesAlias);
      if (isSqlNull(value)) return;
      const key = canonicalValueKey(distinctAlias === undefined ? value : read(row, distinctAlias));
      if (!seen.has(key)) seen.set(key, value);
    },
    values: () => [...seen.values()],
  };
}

function exactSum(values: readonly unknown[]): { total: ScaledDecimal; floating: boolean } {
  let total: ScaledDecimal = { unscaled: 0n, scale: 0 };
  let floating = false;
  for (const value of values) {
    if (typeof value === 'number' && !Number.isInteger(value)) floating = true;
    const d = exactOf(value);
    if (d === undefined) {
      throw new UnsupportedShardingError(
        `SUM / AVG(DISTINCT …) over several shards of a value that is no number (${showValue(value)}): the database converts text and bytes by its own rules; CAST the argument to a number.`,
        { stage: 'merge' },
      );
    }
    const scale = Math.max(total.scale, d.scale);
    total = { unscaled: total.unscaled * 10n ** BigInt(scale - total.scale) + d.unscaled * 10n ** BigInt(scale - d.scale), scale };
  }
  return { total, floating };
}

/** SUM/AVG(DISTINCT …): the exact total of the distinct values, finished by `finish` (NULL when there is none). */
function overDistinctValues(
  spec: { readonly valuesAlias: string; readonly distinctAlias?: string | undefined },
  finish: (sum: ReturnType<typeof exactSum>, count: number, partial: unknown) => unknown,
): Accumulator {
  const values = distinctValues(spec.valuesAlias, spec.distinctAlias);
  return {
    add: values.add,
    result: (partial) => {
      const all = values.values();
      return all.length === 0 ? null : finish(exactSum(all), all.length, partial);
    },
  };
}

const sumDistinct: AccumulatorFactories<'SUM_DISTINCT'>['SUM_DISTINCT'] = (spec) =>
  overDistinctValues(spec, ({ total, floating }, _count, partial) => (floating ? Number(formatDecimal(total)) : representLike(total, partial)));

const avgDistinct: AccumulatorFactories<'AVG_DISTINCT'>['AVG_DISTINCT'] = (spec) =>
  overDistinctValues(spec, ({ total, floating }, count, partial) => {
    if (floating || typeof partial !== 'string') return Number(formatDecimal(total)) / count;
    const scale = scaleOfText(partial) ?? total.scale + (spec.scaleIncrement ?? 4);
    // The values may carry more digits than the result shows (quotients sent at full
    // precision): total / (count · 10^(its extra digits)), rounded once at the shown scale.
    const quotient =
      scale >= total.scale
        ? divideDecimal(total, BigInt(count), scale - total.scale)
        : divideDecimal({ unscaled: total.unscaled, scale }, BigInt(count) * 10n ** BigInt(total.scale - scale), 0);
    return representLike(quotient, partial);
  });

/** Text of one value inside GROUP_CONCAT, as the server writes it. */
function concatText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  throw new UnsupportedShardingError(
    `GROUP_CONCAT over several shards of a value that is no text, number or bytes (${showValue(value)}): the server writes dates and times as text by its own rules, which the merge does not reproduce; CAST the argument AS CHAR.`,
    { stage: 'merge' },
  );
}

/** Cuts `text` to at most `maxBytes` UTF-8 bytes without splitting a character. */
function cutBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += char.length;
  }
  return text.slice(0, end);
}

const groupConcat: AccumulatorFactories<'GROUP_CONCAT'>['GROUP_CONCAT'] = (spec) => {
  const entries: { value: unknown; keys: unknown[]; count: number; same: string }[] = [];
  const comparators = spec.orderBy.map((o) => ({ compare: createValueComparator(o.type, o.collation), sign: o.direction === 'DESC' ? -1 : 1 }));
  return {
    add(row) {
      const value = read(row, spec.valuesAlias);
      if (isSqlNull(value)) return;
      const count = spec.countAlias === undefined ? 1 : Number(read(row, spec.countAlias));
      entries.push({
        value,
        keys: spec.orderBy.map((o) => read(row, o.column)),
        count,
        same: canonicalValueKey(spec.distinctAlias === undefined ? value : read(row, spec.distinctAlias)),
      });
    },
    result() {
      let kept = entries;
      if (spec.distinct) {
        const seen = new Set<string>();
        kept = entries.filter((e) => (seen.has(e.same) ? false : (seen.add(e.same), true)));
      }
      if (kept.length === 0) return null;
      // Stable: values with equal keys keep the order they arrived in.
      const ordered = comparators.length === 0 ? kept : [...kept].sort((a, b) => {
        for (let i = 0; i < comparators.length; i++) {
          const c = comparators[i]!.compare(a.keys[i], b.keys[i]) * comparators[i]!.sign;
          if (c !== 0) return c;
        }
        return 0;
      });
      const parts: string[] = [];
      for (const e of ordered) for (let i = 0; i < (spec.distinct ? 1 : e.count); i++) parts.push(concatText(e.value));
      return cutBytes(parts.join(spec.separator), spec.maxLength ?? 1_048_576);
    },
  } satisfies Accumulator;
};

export const HOLISTIC_ACCUMULATORS: AccumulatorFactories<'SUM_DISTINCT' | 'AVG_DISTINCT' | 'GROUP_CONCAT'> = {
  SUM_DISTINCT: sumDistinct,
  AVG_DISTINCT: avgDistinct,
  GROUP_CONCAT: groupConcat,
};

import { derivedColumnsOf, type AggregateFunction, type AggregateSpec, type AggregateSpecOf } from './aggregate-spec.js';
import { canonicalValueKey } from './canonical-key.js';
import { createValueComparator, isSqlNull } from '../values/compare-values.js';
import { divideDecimal, formatDecimal, parseScaledDecimal } from '../values/decimal.js';
import { ExactSum } from './exact-sum.js';
import { invalidMergeSpec, MergeValueError, showValue } from './merge-error.js';
import type { Row } from './row.js';
import { HOLISTIC_ACCUMULATORS } from './holistic-accumulators.js';
import { exactOf, representLike, scaleOfText } from './represent-like.js';
import { STATISTIC_ACCUMULATORS } from './statistic-accumulators.js';

/** Running state of one aggregate over the rows of one group. */
export interface Accumulator {
  add(row: Row): void;
  /**
   * The merged result. `partial` is the value the first input row of the group held in the
   * aggregate's own column: the shards' partial result, whose JavaScript form (number or
   * decimal text) is the driver's for this column.
   */
  result(partial: unknown): unknown;
  /** Columns besides the alias that the result sets (MIN/MAX: the winner's sort key). */
  extra?(out: Row): void;
}

/**
 * The combined aggregates of one group: rows are added one by one, then `finish` makes
 * the output row.
 */
export interface AggregateState {
  /** Folds one input row (a partial result) into every aggregate. */
  add(row: Row): void;
  /**
   * The output row: the columns of `template` (the group's first row; its non-aggregate
   * columns are the group's values) with every aggregate alias set to its merged result
   * and the derived columns of AVG and COUNT_DISTINCT removed. Without a template (a
   * global aggregate over no rows) the row holds only the aggregates.
   */
  finish(template: Row | undefined): Row;
}

/** Creates the state for one group; call once per group. */
export function createAggregateState(specs: readonly AggregateSpec[]): AggregateState {
  const accumulators = specs.map(createAccumulator);
  const aliases = new Set(specs.map((spec) => spec.alias));
  const derived = new Set(specs.flatMap(derivedColumnsOf).filter((column) => !aliases.has(column)));
  // The first non-NULL partial of each aggregate: the driver's form of its column.
  const partials: unknown[] = specs.map(() => null);
  // Other columns NULL in the group's first row, with the first non-NULL value seen since: a
  // computed item's partial tells the driver's form of its merged value (`merge/compute.ts`).
  let filled: Row | undefined;
  let missing: string[] = [];
  return {
    add(row) {
      for (const accumulator of accumulators) accumulator.add(row);
      specs.forEach((spec, i) => {
        if (partials[i] === null || partials[i] === undefined) partials[i] = row[spec.alias];
      });
      if (filled === undefined) {
        filled = {};
        for (const column in row) if (row[column] === null && !aliases.has(column) && !derived.has(column)) missing.push(column);
      } else if (missing.length > 0) {
        missing = missing.filter((column) => {
          const value = row[column];
          if (value === null || value === undefined) return true;
          filled![column] = value;
          return false;
        });
      }
    },
    finish(template) {
      const out: Row = {};
      if (template !== undefined) {
        for (const column in template) {
          if (!derived.has(column)) out[column] = template[column] ?? filled?.[column] ?? template[column];
        }
      }
      specs.forEach((spec, i) => {
        const accumulator = accumulators[i] as Accumulator;
        out[spec.alias] = accumulator.result(partials[i] ?? template?.[spec.alias]);
        accumulator.extra?.(out);
      });
      return out;
    },
  };
}

/** A column of an input row; a missing column is a plan bug, not a NULL. */
export function read(row: Row, column: string): unknown {
  const value = row[column];
  if (value === undefined && !(column in row)) throw invalidMergeSpec(`aggregate column ${JSON.stringify(column)} is not in the row`);
  return value;
}

/** One accumulator factory per aggregate function. */
export type AccumulatorFactories<F extends AggregateFunction = AggregateFunction> = { readonly [G in F]: (spec: AggregateSpecOf<G>) => Accumulator };

const FACTORIES: AccumulatorFactories = {
  COUNT: (spec) => {
    const sum = new ExactSum();
    return { add: (row) => sum.add(read(row, spec.alias)), result: (partial) => sum.total() ?? (partial === '0' ? '0' : 0) };
  },
  SUM: (spec) => {
    const sum = new ExactSum();
    const exactAlias = spec.exactAlias;
    if (exactAlias === undefined) return { add: (row) => sum.add(read(row, spec.alias)), result: () => sum.total() };
    return {
      add: (row) => sum.add(read(row, exactAlias)),
      result: (partial) => {
        const total = sum.total();
        const exact = total === null ? undefined : exactOf(total);
        return exact === undefined ? total : representLike(exact, partial);
      },
      extra: (out) => {
        out[exactAlias] = sum.total();
      },
    };
  },
  MIN: (spec) => extreme(spec.alias, spec.keyColumn ?? spec.alias, createValueComparator(spec.type ?? 'auto', spec.collation), -1, spec.companions),
  MAX: (spec) => extreme(spec.alias, spec.keyColumn ?? spec.alias, createValueComparator(spec.type ?? 'auto', spec.collation), 1, spec.companions),
  AVG: (spec) => {
    const sum = new ExactSum();
    const count = new ExactSum();
    return {
      add: (row) => {
        sum.add(read(row, spec.sumAlias));
        count.add(read(row, spec.countAlias));
      },
      result: (partial) => average(sum.total(), count.total(), spec.scaleIncrement ?? 4, partial),
    };
  },
  COUNT_DISTINCT: (spec) => {
    const seen = new Set<string>();
    return {
      add: (row) => {
        const value = read(row, spec.valuesAlias);
        if (!isSqlNull(value)) seen.add(canonicalValueKey(value, spec.collation));
      },
      // The shards' own COUNT tells the driver's form (mysql2 returns BIGINT as text).
      result: (partial) => representLike({ unscaled: BigInt(seen.size), scale: 0 }, partial),
    };
  },
  ...HOLISTIC_ACCUMULATORS,
  ...STATISTIC_ACCUMULATORS,
};

function createAccumulator(spec: AggregateSpec): Accumulator {
  return (FACTORIES[spec.fn] as (spec: AggregateSpec) => Accumulator)(spec);
}

/** The extreme `column` value, judged by `keyColumn` (the same column, or the server's sort key of it). */
function extreme(column: string, keyColumn: string, compare: (a: unknown, b: unknown) => number, wanted: 1 | -1, companions: readonly string[] = []): Accumulator {
  let best: unknown = null;
  let bestKey: unknown = null;
  let bestRow: Row | undefined;
  return {
    add: (row) => {
      const value = read(row, column);
      if (isSqlNull(value)) return;
      const key = keyColumn === column ? value : read(row, keyColumn);
      // Ties keep the first value seen, so the result does not depend on later inputs.
      if (bestRow === undefined || compare(key, bestKey) * wanted > 0) {
        best = value;
        bestKey = key;
        bestRow = row;
      }
    },
    result: () => best,
    extra: (out) => {
      if (keyColumn !== column) out[keyColumn] = bestKey;
      // No value at all: the companions are NULL, as the server's would be.
      for (const companion of companions) out[companion] = bestRow === undefined ? null : read(bestRow, companion);
    },
  };
}

function average(sum: number | bigint | string | null, count: number | bigint | string | null, scaleIncrement: number, partial: unknown): unknown {
  if (sum === null || count === null || Number(count) === 0) return null;
  if (typeof sum === 'string') {
    const dividend = parseScaledDecimal(sum);
    if (dividend === undefined) throw new MergeValueError(`cannot average the sum ${showValue(sum)}`);
    // The shards' own AVG shows the scale the server gives it (a sum sent at full precision has more).
    const shown = typeof partial === 'string' ? scaleOfText(partial) : undefined;
    if (shown === undefined || shown <= dividend.scale) {
      const quotient = divideDecimal(dividend, toBigInt(count), shown === undefined ? scaleIncrement : Math.max(scaleIncrement, shown - dividend.scale + 1));
      return shown === undefined ? formatDecimal(quotient) : representLike(quotient, partial);
    }
    return formatDecimal(divideDecimal(dividend, toBigInt(count), shown - dividend.scale));
  }
  return Number(sum) / Number(count);
}

function toBigInt(count: number | bigint | string): bigint {
  try {
    return BigInt(count);
  } catch {
    throw new MergeValueError(`cannot divide by the count ${showValue(count)}`);
  }
}

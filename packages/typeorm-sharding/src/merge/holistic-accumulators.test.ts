import { describe, expect, it } from 'vitest';
import { createAggregateState } from './accumulators.js';
import type { AggregateSpec } from './aggregate-spec.js';
import type { Row } from './row.js';

function merge(spec: AggregateSpec, rows: Row[], template: Row = rows[0] ?? {}): unknown {
  const state = createAggregateState([spec]);
  for (const row of rows) state.add(row);
  return state.finish(template)[spec.alias];
}

describe('aggregates merged from values and partials', () => {
  it('SUM(DISTINCT) adds each distinct value once, in the driver\'s form of the shards\' partial', () => {
    const rows = [{ s: '5', v: 2 }, { s: '5', v: 3 }, { s: '4', v: 2 }, { s: '4', v: null }, { s: '4', v: 4 }];
    expect(merge({ alias: 's', fn: 'SUM_DISTINCT', valuesAlias: 'v' }, rows)).toBe('9');
    expect(merge({ alias: 's', fn: 'SUM_DISTINCT', valuesAlias: 'v' }, rows.map((r) => ({ ...r, s: Number(r.s) })))).toBe(9);
    expect(merge({ alias: 's', fn: 'SUM_DISTINCT', valuesAlias: 'v' }, [{ s: null, v: null }])).toBeNull();
  });

  it('AVG(DISTINCT) of exact values keeps the server\'s scale', () => {
    expect(merge({ alias: 'a', fn: 'AVG_DISTINCT', valuesAlias: 'v' }, [{ a: '2.0000', v: 1 }, { a: '2.0000', v: 2 }, { a: '1.0000', v: 1 }])).toBe('1.5000');
  });

  it('COUNT(DISTINCT) counts keys, in the form of the partial count', () => {
    expect(merge({ alias: 'n', fn: 'COUNT_DISTINCT', valuesAlias: 'w' }, [{ n: '2', w: 'a' }, { n: '1', w: 'b' }, { n: '1', w: 'a' }])).toBe('2');
  });

  it('GROUP_CONCAT orders by its keys, repeats by count, and cuts at the byte limit', () => {
    const spec: AggregateSpec = {
      alias: 'g',
      fn: 'GROUP_CONCAT',
      valuesAlias: 'v',
      distinct: false,
      orderBy: [{ column: 'k', direction: 'DESC', type: 'numeric' }],
      countAlias: 'n',
      separator: '|',
    };
    const rows = [{ g: 'x', v: 'a', k: 1, n: 2 }, { g: 'x', v: 'b', k: 3, n: 1 }, { g: 'x', v: null, k: 9, n: 4 }];
    expect(merge(spec, rows)).toBe('b|a|a');
    expect(merge({ ...spec, maxLength: 3 }, rows)).toBe('b|a');
    expect(merge({ ...spec, distinct: true, countAlias: undefined }, rows)).toBe('b|a');
  });

  it('BIT_AND / BIT_OR / BIT_XOR combine unsigned 64-bit partials', () => {
    const rows = [{ x: '12' }, { x: '10' }];
    expect(merge({ alias: 'x', fn: 'BIT_AND' }, rows)).toBe('8');
    expect(merge({ alias: 'x', fn: 'BIT_OR' }, rows)).toBe('14');
    expect(merge({ alias: 'x', fn: 'BIT_XOR' }, rows)).toBe('6');
  });

  it('VARIANCE family from exact COUNT, SUM and SUM of squares', () => {
    // values 1, 2, 3, 4 on two shards: population variance 1.25, sample 1.666…
    const rows = [{ n: 2, s: '3', q: '5' }, { n: 2, s: '7', q: '25' }];
    const base = { alias: 'v', fn: 'VARIANCE', countAlias: 'n', sumAlias: 's', sumSquaresAlias: 'q' } as const;
    expect(merge({ ...base, sample: false, sqrt: false }, rows)).toBe(1.25);
    expect(merge({ ...base, sample: true, sqrt: false }, rows)).toBeCloseTo(5 / 3, 15);
    expect(merge({ ...base, sample: false, sqrt: true }, rows)).toBe(Math.sqrt(1.25));
    expect(merge({ ...base, sample: true, sqrt: false }, [{ n: 1, s: '3', q: '9' }])).toBeNull();
  });
});

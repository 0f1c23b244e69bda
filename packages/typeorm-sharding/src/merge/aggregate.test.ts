import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createScalarAggregate, type AggregateSpec } from './aggregate.js';
import { collectRows } from './collect-rows.js';
import { compareValues } from '../values/compare-values.js';
import { divideDecimal, formatDecimal } from '../values/decimal.js';
import type { Row } from './row.js';
import { fakeInput, show } from './testing/fake-input.js';

const specs: readonly AggregateSpec[] = [
  { alias: 'cnt', fn: 'COUNT' },
  { alias: 'total', fn: 'SUM' },
  { alias: 'lo', fn: 'MIN', type: 'numeric' },
  { alias: 'hi', fn: 'MAX', type: 'numeric' },
  { alias: 'av', fn: 'AVG', sumAlias: '__avg_sum_0', countAlias: '__avg_count_0' },
];

const aggregate = async (inputs: readonly (readonly Row[])[], aggregates: readonly AggregateSpec[] = specs): Promise<string[]> =>
  (await collectRows(createScalarAggregate(fakeInput(inputs.flat()), aggregates))).map(show);

describe('ScalarAggregate', () => {
  it('merges mysql2 partials: COUNT numbers, SUM/AVG parts as decimal strings', async () => {
    expect(
      await aggregate([
        [{ cnt: 3, total: '12.50', lo: '1.25', hi: '9.00', av: '4.166667', __avg_sum_0: '12.50', __avg_count_0: 3 }],
        [{ cnt: 0, total: null, lo: null, hi: null, av: null, __avg_sum_0: null, __avg_count_0: 0 }],
        [{ cnt: 2, total: '10.75', lo: '0.75', hi: '10.00', av: '5.375000', __avg_sum_0: '10.75', __avg_count_0: 2 }],
      ]),
    ).toEqual(['cnt=5 total="23.25" lo="0.75" hi="10.00" av="4.650000"']);
  });

  it('merges SQLite partials as numbers', async () => {
    expect(
      await aggregate([
        [{ cnt: 3, total: 12, lo: 1, hi: 9, av: 4, __avg_sum_0: 12, __avg_count_0: 3 }],
        [{ cnt: 1, total: 3, lo: -2, hi: -2, av: 3, __avg_sum_0: 3, __avg_count_0: 1 }],
      ]),
    ).toEqual(['cnt=4 total=15 lo=-2 hi=9 av=3.75']);
  });

  it('adds sums beyond 2^53 exactly, keeping strings as strings and bigints as bigints', async () => {
    const sum: readonly AggregateSpec[] = [{ alias: 's', fn: 'SUM' }];
    expect(await aggregate([[{ s: '9007199254740993' }], [{ s: '1' }]], sum)).toEqual(['s="9007199254740994"']);
    expect(await aggregate([[{ s: 9007199254740993n }], [{ s: 1n }]], sum)).toEqual(['s=9007199254740994n']);
    expect(await aggregate([[{ s: 2 }], [{ s: '0.5' }]], sum)).toEqual(['s="2.5"']);
  });

  it('returns exactly one row over no rows at all: COUNT 0, the others NULL', async () => {
    const all: readonly AggregateSpec[] = [...specs, { alias: 'cd', fn: 'COUNT_DISTINCT', valuesAlias: '__cd_0' }];
    expect(await aggregate([[], [], []], all)).toEqual(['cnt=0 total=null lo=null hi=null av=null cd=0']);
    expect(await collectRows(createScalarAggregate(fakeInput([]), [{ alias: 'n', fn: 'COUNT' }]))).toEqual([{ n: 0 }]);
  });

  it('gives the counts of no row in the driver\'s BIGINT form (mysql2 with bigNumberStrings: text)', async () => {
    const counts: readonly AggregateSpec[] = [{ alias: 'n', fn: 'COUNT' }, { alias: 's', fn: 'SUM' }, { alias: 'cd', fn: 'COUNT_DISTINCT', valuesAlias: '__cd_0' }];
    expect(await collectRows(createScalarAggregate(fakeInput([]), counts, [], 'text'))).toEqual([{ n: '0', s: null, cd: '0' }]);
    expect(await collectRows(createScalarAggregate(fakeInput([]), counts, ['cd', 'n'], 'text'))).toEqual([{ cd: '0', n: '0', s: null }]);
  });

  it('AVG of zero counted rows is NULL, and follows the sum representation', async () => {
    const avg: readonly AggregateSpec[] = [{ alias: 'a', fn: 'AVG', sumAlias: 's', countAlias: 'c', scaleIncrement: 2 }];
    expect(await aggregate([[{ s: null, c: 0 }]], avg)).toEqual(['a=null']);
    expect(await aggregate([[{ s: '2', c: 3 }]], avg)).toEqual(['a="0.67"']);
    expect(await aggregate([[{ s: '-2', c: '3' }]], avg)).toEqual(['a="-0.67"']);
    expect(await aggregate([[{ s: 7n, c: 2n }]], avg)).toEqual(['a=3.5']);
  });

  it('MIN/MAX compare by the given type: numeric strings as numbers, auto as text', async () => {
    const rows = [[{ v: '10' }], [{ v: '9' }], [{ v: null }]];
    expect(await aggregate(rows, [{ alias: 'v', fn: 'MIN', type: 'numeric' }])).toEqual(['v="9"']);
    expect(await aggregate(rows, [{ alias: 'v', fn: 'MIN' }])).toEqual(['v="10"']);
    expect(
      await aggregate([[{ v: 'b' }], [{ v: 'A' }], [{ v: 'a' }]], [{ alias: 'v', fn: 'MAX', type: 'string', collation: 'case-insensitive' }]),
    ).toEqual(['v="b"']);
  });

  it('MIN/MAX with a key column: the value whose server sort key wins, with that key', async () => {
    // MariaDB returns MIN(bit_col) as decimal digits in bytes ('513' < '2' byte-wise); the plan
    // selects MIN(bit_col + 0) next to it and the merge compares that.
    const rows = [[{ v: Buffer.from('513'), k: '513' }], [{ v: Buffer.from('2'), k: '2' }], [{ v: null, k: null }]];
    const spec = (fn: 'MIN' | 'MAX'): readonly AggregateSpec[] => [{ alias: 'v', fn, type: 'numeric', keyColumn: 'k' }];
    expect(await collectRows(createScalarAggregate(fakeInput(rows.flat()), spec('MIN')))).toEqual([{ v: Buffer.from('2'), k: '2' }]);
    expect(await collectRows(createScalarAggregate(fakeInput(rows.flat()), spec('MAX')))).toEqual([{ v: Buffer.from('513'), k: '513' }]);
    expect(await collectRows(createScalarAggregate(fakeInput([]), spec('MAX')))).toEqual([{ v: null, k: null }]);
  });

  it('COUNT_DISTINCT counts distinct non-NULL values across inputs and drops the value column', async () => {
    const cd: readonly AggregateSpec[] = [
      { alias: 'n', fn: 'COUNT_DISTINCT', valuesAlias: '__cd_0' },
      { alias: 'ci', fn: 'COUNT_DISTINCT', valuesAlias: '__cd_1', collation: 'case-insensitive' },
    ];
    // Shards sent `SELECT DISTINCT x AS __cd_0, name AS __cd_1`.
    const rows = [
      [{ __cd_0: 1, __cd_1: 'a' }, { __cd_0: 2, __cd_1: 'B' }],
      [{ __cd_0: 1n, __cd_1: 'A' }, { __cd_0: null, __cd_1: null }],
      [{ __cd_0: '3', __cd_1: 'b ' }],
    ];
    expect(await aggregate(rows, cd)).toEqual(['n=3 ci=2']);
  });

  it('keeps non-aggregate columns of the first row', async () => {
    expect(await aggregate([[{ region: 'eu', cnt: 1 }], [{ region: 'us', cnt: 2 }]], [{ alias: 'cnt', fn: 'COUNT' }])).toEqual([
      'region="eu" cnt=3',
    ]);
  });

  it('throws when a partial column is missing, or a value cannot be added', async () => {
    await expect(aggregate([[{ x: 1 }]], [{ alias: 'cnt', fn: 'COUNT' }])).rejects.toThrow(/"cnt" is not in the row/);
    await expect(aggregate([[{ s: 'abc' }]], [{ alias: 's', fn: 'SUM' }])).rejects.toThrow(/cannot add "abc"/);
  });

  it('describes itself', () => {
    expect(createScalarAggregate(fakeInput([]), specs).describe()).toBe('ScalarAggregate(COUNT(cnt), SUM(total), MIN(lo), MAX(hi), AVG(av))');
  });

  it('over random partitions equals the aggregates over all rows (DECIMAL(12,2) as mysql2 returns it)', async () => {
    const cents = fc.option(fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }), { nil: null });
    await fc.assert(
      fc.asyncProperty(fc.array(cents, { maxLength: 40 }), fc.integer({ min: 1, max: 5 }), fc.infiniteStream(fc.nat()), async (values, k, choices) => {
        const money = (c: bigint) => formatDecimal({ unscaled: c, scale: 2 });
        const partial = (part: readonly (bigint | null)[]): Row => {
          const present = part.filter((v): v is bigint => v !== null);
          const sum = present.length === 0 ? null : money(present.reduce((a, b) => a + b, 0n));
          const sorted = [...present].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
          return {
            cnt: present.length,
            total: sum,
            lo: sorted.length === 0 ? null : money(sorted[0]!),
            hi: sorted.length === 0 ? null : money(sorted.at(-1)!),
            av: null,
            __avg_sum_0: sum,
            __avg_count_0: present.length,
          };
        };
        const parts: (bigint | null)[][] = Array.from({ length: k }, () => []);
        for (const v of values) parts[choices.next().value % k]!.push(v);

        const [merged] = await collectRows(createScalarAggregate(fakeInput(parts.map(partial)), specs));
        const whole = partial(values);
        const avg =
          whole.__avg_sum_0 === null
            ? null
            : formatDecimal(divideDecimal({ unscaled: BigInt((whole.__avg_sum_0 as string).replace('.', '')), scale: 2 }, BigInt(whole.cnt as number), 4));
        expect(merged).toEqual({ cnt: whole.cnt, total: whole.total, lo: whole.lo, hi: whole.hi, av: avg });
        if (merged?.['lo'] !== null) expect(compareValues(merged?.['lo'], merged?.['hi'], 'numeric')).toBeLessThanOrEqual(0);
      }),
    );
  });
});

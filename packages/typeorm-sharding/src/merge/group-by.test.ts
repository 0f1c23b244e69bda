import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AggregateSpec } from './aggregate-spec.js';
import { collectRows } from './collect-rows.js';
import { createConcat } from './concat.js';
import { createHashGroupBy, createStreamGroupBy } from './group-by.js';
import { createMergeSort } from './merge-sort.js';
import type { SortKey } from './row-comparator.js';
import type { Row } from './row.js';
import { fakeInput, show } from './testing/fake-input.js';

const countAndSum: readonly AggregateSpec[] = [
  { alias: 'cnt', fn: 'COUNT' },
  { alias: 's', fn: 'SUM' },
];

describe('HashGroupBy', () => {
  it('merges the partial groups of every input, in first-seen order', async () => {
    const shard0 = fakeInput([
      { g: 'b', cnt: 2, s: '5' },
      { g: 'a', cnt: 1, s: '1' },
      { g: null, cnt: 1, s: null },
    ]);
    const shard1 = fakeInput([
      { g: 'a', cnt: 3, s: '2' },
      { g: 'c', cnt: 1, s: '7' },
      { g: null, cnt: 2, s: '1' },
    ]);
    const groups = createHashGroupBy(createConcat([shard0, shard1]), [{ column: 'g' }], countAndSum);
    expect((await collectRows(groups)).map(show)).toEqual(['g="b" cnt=2 s="5"', 'g="a" cnt=4 s="3"', 'g=null cnt=3 s="1"', 'g="c" cnt=1 s="7"']);
    expect(groups.describe()).toBe('HashGroupBy(keys=[g], aggregates=[COUNT(cnt), SUM(s)])');
  });

  it('groups case-insensitive keys together, keeping the first spelling (as MySQL _ci does)', async () => {
    const rows = [
      { name: 'ann', cnt: 1 },
      { name: 'Ann', cnt: 2 },
      { name: 'ÀNN ', cnt: 3 },
      { name: 'bob', cnt: 1 },
    ];
    const ci = createHashGroupBy(fakeInput(rows), [{ column: 'name', collation: 'case-insensitive' }], [{ alias: 'cnt', fn: 'COUNT' }]);
    expect((await collectRows(ci)).map(show)).toEqual(['name="ann" cnt=6', 'name="bob" cnt=1']);
    const binary = createHashGroupBy(fakeInput(rows), [{ column: 'name' }], [{ alias: 'cnt', fn: 'COUNT' }]);
    expect(await collectRows(binary)).toHaveLength(4);
  });

  it('groups on several keys, numbers of different spellings together', async () => {
    const rows = [
      { a: 1, b: 'x', cnt: 1 },
      { a: 1n, b: 'x', cnt: 1 },
      { a: 1, b: 'y', cnt: 1 },
    ];
    const groups = createHashGroupBy(fakeInput(rows), [{ column: 'a' }, { column: 'b' }], [{ alias: 'cnt', fn: 'COUNT' }]);
    expect((await collectRows(groups)).map(show)).toEqual(['a=1 b="x" cnt=2', 'a=1 b="y" cnt=1']);
  });

  it('merges COUNT(DISTINCT x) from rows the plan grouped by (g, x)', async () => {
    // SELECT g, COUNT(DISTINCT x) AS n, SUM(y) AS s … GROUP BY g
    // was sent as SELECT g, x AS __cd_0, SUM(y) AS s … GROUP BY g, x
    const spec: readonly AggregateSpec[] = [
      { alias: 'n', fn: 'COUNT_DISTINCT', valuesAlias: '__cd_0' },
      { alias: 's', fn: 'SUM' },
    ];
    const shard0 = fakeInput([
      { g: 1, __cd_0: 'a', s: 10 },
      { g: 1, __cd_0: 'b', s: 1 },
      { g: 2, __cd_0: 'a', s: 5 },
    ]);
    const shard1 = fakeInput([
      { g: 1, __cd_0: 'a', s: 4 },
      { g: 2, __cd_0: null, s: 2 },
    ]);
    const groups = createHashGroupBy(createConcat([shard0, shard1]), [{ column: 'g' }], spec);
    expect((await collectRows(groups)).map(show)).toEqual(['g=1 s=15 n=2', 'g=2 s=7 n=1']);
  });

  it('yields nothing over no rows', async () => {
    expect(await collectRows(createHashGroupBy(fakeInput([]), [{ column: 'g' }], countAndSum))).toEqual([]);
  });
});

describe('StreamGroupBy', () => {
  const byG: readonly SortKey[] = [{ column: 'g', direction: 'ASC', type: 'numeric' }];

  it('groups a merge sort by the group keys one group at a time', async () => {
    const log: string[] = [];
    const merged = createMergeSort(
      [
        fakeInput([{ g: 1, cnt: 1, s: 2 }, { g: 3, cnt: 1, s: 1 }], { name: 's0', log }),
        fakeInput([{ g: '1', cnt: 2, s: 3 }, { g: 2, cnt: 5, s: 5 }, { g: 3, cnt: 1, s: 1 }], { name: 's1', log }),
      ],
      byG,
    );
    const groups = createStreamGroupBy(merged, byG, countAndSum);
    const iterator = groups[Symbol.asyncIterator]();
    expect(show((await iterator.next()).value as Row)).toBe('g=1 cnt=3 s=5');
    // Emitted as soon as the first row of group 2 arrived, before reading group 3.
    expect(log).toEqual(['s0: next → g=1 cnt=1 s=2', 's1: next → g="1" cnt=2 s=3', 's0: next → g=3 cnt=1 s=1', 's1: next → g=2 cnt=5 s=5']);
    const rest: string[] = [];
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) rest.push(show(next.value));
    expect(rest).toEqual(['g=2 cnt=5 s=5', 'g=3 cnt=2 s=2']);
    expect(groups.describe()).toBe('StreamGroupBy(keys=[g], aggregates=[COUNT(cnt), SUM(s)])');
  });

  it('refuses input that is not ordered by the keys instead of splitting a group', async () => {
    const unordered = fakeInput([{ g: 2, cnt: 1, s: 1 }, { g: 1, cnt: 1, s: 1 }]);
    await expect(collectRows(createStreamGroupBy(unordered, byG, countAndSum))).rejects.toThrow(/not ordered by the group keys/);
    expect(unordered.closed).toBe(true);
  });
});

describe('group-by properties', () => {
  const rowsArb = fc.array(
    fc.record({ g: fc.integer({ min: 0, max: 6 }), v: fc.option(fc.integer({ min: -1000, max: 1000 }), { nil: null }) }),
    { maxLength: 60 },
  );
  const aggregates: readonly AggregateSpec[] = [
    { alias: 'cnt', fn: 'COUNT' },
    { alias: 's', fn: 'SUM' },
    { alias: 'lo', fn: 'MIN', type: 'numeric' },
    { alias: 'hi', fn: 'MAX', type: 'numeric' },
  ];

  // What one shard answers to `SELECT g, COUNT(v) cnt, SUM(v) s, MIN(v) lo, MAX(v) hi … GROUP BY g ORDER BY g`
  // (SUM as mysql2's decimal string).
  const groupRows = (rows: readonly { g: number; v: number | null }[]): Row[] => {
    const groups = new Map<number, (number | null)[]>();
    for (const row of rows) groups.set(row.g, [...(groups.get(row.g) ?? []), row.v]);
    return [...groups.entries()]
      .sort(([a], [b]) => a - b)
      .map(([g, vs]) => {
        const present = vs.filter((v): v is number => v !== null);
        return {
          g,
          cnt: present.length,
          s: present.length === 0 ? null : String(present.reduce((a, b) => a + b, 0)),
          lo: present.length === 0 ? null : Math.min(...present),
          hi: present.length === 0 ? null : Math.max(...present),
        };
      });
  };

  const partition = <T>(rows: readonly T[], k: number, choices: Iterator<number>): T[][] => {
    const parts: T[][] = Array.from({ length: k }, () => []);
    for (const row of rows) parts[choices.next().value % k]!.push(row);
    return parts;
  };

  it('hash grouping of random partitions equals grouping everything', async () => {
    await fc.assert(
      fc.asyncProperty(rowsArb, fc.integer({ min: 1, max: 5 }), fc.infiniteStream(fc.nat()), async (rows, k, choices) => {
        const inputs = partition(rows, k, choices).map((part) => fakeInput(groupRows(part)));
        const merged = await collectRows(createHashGroupBy(createConcat(inputs), [{ column: 'g' }], aggregates));
        const byKey = (a: Row, b: Row) => Number(a['g']) - Number(b['g']);
        expect(merged.sort(byKey)).toEqual(groupRows(rows));
      }),
    );
  });

  it('stream grouping over a merge sort equals grouping everything, in order', async () => {
    const byG: readonly SortKey[] = [{ column: 'g', direction: 'ASC', type: 'numeric' }];
    await fc.assert(
      fc.asyncProperty(rowsArb, fc.integer({ min: 1, max: 5 }), fc.infiniteStream(fc.nat()), async (rows, k, choices) => {
        const inputs = partition(rows, k, choices).map((part) => fakeInput(groupRows(part)));
        const merged = await collectRows(createStreamGroupBy(createMergeSort(inputs, byG), byG, aggregates));
        expect(merged).toEqual(groupRows(rows));
      }),
    );
  });
});

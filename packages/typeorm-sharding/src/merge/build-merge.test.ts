import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildMerge } from './build-merge.js';
import { collectRows } from './collect-rows.js';
import type { MergeSpec } from './merge-spec.js';
import { createRowComparator, type SortKey } from './row-comparator.js';
import type { Row } from './row.js';
import { fakeInput, show } from './testing/fake-input.js';

const inputsOf = (parts: readonly (readonly Row[])[]) => parts.map((rows, i) => fakeInput(rows, { name: `s${i}` }));

describe('buildMerge', () => {
  it('concat: rows as they come', async () => {
    const pipeline = buildMerge({ kind: 'concat' }, inputsOf([[{ id: 2 }], [{ id: 1 }]]));
    expect((await collectRows(pipeline)).map(show)).toEqual(['id=2', 'id=1']);
    expect(pipeline.describe()).toBe(['Concat over 2 inputs', '├─ input 0', '└─ input 1'].join('\n'));
  });

  it('ordered + limit + strip: streams a merge sort and cuts the page after it', async () => {
    const spec: MergeSpec = {
      kind: 'ordered',
      orderBy: [
        { column: '__sk0', direction: 'DESC', type: 'numeric' },
        { column: 'id', direction: 'ASC', type: 'numeric' },
      ],
      limit: { offset: 1, count: 2 },
      strip: ['__sk0'],
    };
    const inputs = inputsOf([
      [{ id: 1, __sk0: '30' }, { id: 4, __sk0: '10' }],
      [{ id: 2, __sk0: '20' }, { id: 3, __sk0: '20' }],
    ]);
    const pipeline = buildMerge(spec, inputs);
    expect(pipeline.describe()).toBe(
      [
        'StripColumns(__sk0)',
        '└─ Limit(offset=1, count=2)',
        '   └─ MergeSort(2 keys: __sk0 DESC, id ASC) over 2 inputs',
        '      ├─ input 0',
        '      └─ input 1',
      ].join('\n'),
    );
    expect((await collectRows(pipeline)).map(show)).toEqual(['id=2', 'id=3']);
    expect(inputs.every((input) => input.closed)).toBe(true);
  });

  it('prints the describe() of inputs that have one', () => {
    const named = Object.assign(fakeInput([]), { describe: () => 'Route(s1: SELECT … LIMIT 0, 40)' });
    expect(buildMerge({ kind: 'concat' }, [named]).describe()).toBe('Concat over 1 inputs\n└─ Route(s1: SELECT … LIMIT 0, 40)');
  });

  describe('the Atlas case: ORDER BY create_time DESC LIMIT 20, 20 over 4 shards', () => {
    // user 123's replies spread over 4 shards by tid, each shard holding fewer than 40 of them.
    const replies: Row[] = Array.from({ length: 46 }, (_, i) => ({
      id: 1000 + i,
      tid: 228596 + ((i * 7) % 13),
      user_id: 123,
      create_time: new Date(Date.UTC(2024, 0, 1, 0, (i * 37) % 46, i % 3)),
    }));
    const shardOf = (row: Row) => Number(row['tid']) % 4;
    const orderBy: readonly SortKey[] = [
      { column: 'create_time', direction: 'DESC', type: 'date' },
      { column: 'id', direction: 'ASC', type: 'numeric' },
    ];
    const compare = createRowComparator(orderBy);
    const unshardedPage = [...replies].sort(compare).slice(20, 40);
    const shardRows = [0, 1, 2, 3].map((shard) => replies.filter((row) => shardOf(row) === shard).sort(compare));

    it('every shard holds fewer than 40 rows, so per-shard LIMIT 20, 20 (Atlas) loses rows', () => {
      expect(shardRows.every((rows) => rows.length > 0 && rows.length < 40)).toBe(true);
      const atlas = shardRows.flatMap((rows) => rows.slice(20, 40));
      expect(atlas.length).toBeLessThan(20);
    });

    it('LIMIT 0, 40 per shard + merge sort + Limit(20, 20) gives the unsharded page', async () => {
      const inputs = inputsOf(shardRows.map((rows) => rows.slice(0, 40)));
      const page = await collectRows(buildMerge({ kind: 'ordered', orderBy, limit: { offset: 20, count: 20 } }, inputs));
      expect(page).toHaveLength(20);
      expect(page).toEqual(unshardedPage);
    });
  });

  it('GROUP BY + HAVING + ORDER BY an aggregate + LIMIT: hash group, then filter, sort in memory, page', async () => {
    // SELECT buyer, COUNT(*) cnt, AVG(amount) av FROM orders GROUP BY buyer HAVING cnt >= 2
    // ORDER BY cnt DESC, buyer LIMIT 0, 2
    const spec: MergeSpec = {
      kind: 'ordered',
      orderBy: [
        { column: 'cnt', direction: 'DESC', type: 'numeric' },
        { column: 'buyer', direction: 'ASC', type: 'numeric' },
      ],
      groupBy: [{ column: 'buyer' }],
      aggregates: [
        { alias: 'cnt', fn: 'COUNT' },
        { alias: 'av', fn: 'AVG', sumAlias: '__avg_sum_0', countAlias: '__avg_count_0' },
      ],
      having: { predicate: (row) => Number(row['cnt']) >= 2, label: 'cnt >= 2' },
      limit: { offset: 0, count: 2 },
    };
    const inputs = inputsOf([
      [
        { buyer: 7, cnt: 3, av: '5.0000', __avg_sum_0: '15', __avg_count_0: 3 },
        { buyer: 8, cnt: 1, av: '1.0000', __avg_sum_0: '1', __avg_count_0: 1 },
      ],
      [
        { buyer: 9, cnt: 2, av: '2.0000', __avg_sum_0: '4', __avg_count_0: 2 },
        { buyer: 8, cnt: 2, av: '3.0000', __avg_sum_0: '6', __avg_count_0: 2 },
        { buyer: 6, cnt: 1, av: '9.0000', __avg_sum_0: '9', __avg_count_0: 1 },
      ],
    ]);
    const pipeline = buildMerge(spec, inputs);
    expect(pipeline.describe()).toBe(
      [
        'Limit(offset=0, count=2)',
        '└─ MemorySort(2 keys: cnt DESC, buyer ASC)',
        '   └─ Filter(cnt >= 2)',
        '      └─ HashGroupBy(keys=[buyer], aggregates=[COUNT(cnt), AVG(av)])',
        '         └─ Concat over 2 inputs',
        '            ├─ input 0',
        '            └─ input 1',
      ].join('\n'),
    );
    expect((await collectRows(pipeline)).map(show)).toEqual(['buyer=7 cnt=3 av="5.0000"', 'buyer=8 cnt=3 av="2.3333"']);
  });

  it('GROUP BY with ORDER BY the group keys streams the groups from a merge sort', async () => {
    const spec: MergeSpec = {
      kind: 'ordered',
      orderBy: [
        { column: 'day', direction: 'DESC', type: 'date' },
        { column: 'shop', direction: 'ASC', type: 'string' },
      ],
      groupBy: [{ column: 'shop' }, { column: 'day' }],
      aggregates: [{ alias: 'total', fn: 'SUM' }],
    };
    const inputs = inputsOf([
      [
        { day: '2024-01-02', shop: 'a', total: '1.50' },
        { day: '2024-01-01', shop: 'a', total: '2.00' },
      ],
      [
        { day: '2024-01-02', shop: 'a', total: '0.25' },
        { day: '2024-01-02', shop: 'b', total: '3.00' },
      ],
    ]);
    const pipeline = buildMerge(spec, inputs);
    expect(pipeline.describe().split('\n').slice(0, 2)).toEqual([
      'StreamGroupBy(keys=[day, shop], aggregates=[SUM(total)])',
      '└─ MergeSort(2 keys: day DESC, shop ASC) over 2 inputs',
    ]);
    expect((await collectRows(pipeline)).map(show)).toEqual([
      'day="2024-01-02" shop="a" total="1.75"',
      'day="2024-01-02" shop="b" total="3.00"',
      'day="2024-01-01" shop="a" total="2.00"',
    ]);
  });

  it('case-insensitive group keys are grouped by hash even when ORDER BY matches them', async () => {
    const spec: MergeSpec = {
      kind: 'ordered',
      orderBy: [{ column: 'name', direction: 'ASC', type: 'string', collation: 'case-insensitive' }],
      groupBy: [{ column: 'name', collation: 'case-insensitive' }],
      aggregates: [{ alias: 'cnt', fn: 'COUNT' }],
    };
    const pipeline = buildMerge(spec, inputsOf([[{ name: 'bob', cnt: 1 }, { name: 'Ann', cnt: 1 }], [{ name: 'ann', cnt: 4 }]]));
    expect(pipeline.describe().split('\n').slice(0, 2)).toEqual([
      'MemorySort(1 key: name ASC)',
      '└─ HashGroupBy(keys=[name], aggregates=[COUNT(cnt)])',
    ]);
    expect((await collectRows(pipeline)).map(show)).toEqual(['name="Ann" cnt=5', 'name="bob" cnt=1']);
  });

  it('a global aggregate gives one row even when every input is empty', async () => {
    const spec: MergeSpec = {
      kind: 'concat',
      aggregates: [
        { alias: 'cnt', fn: 'COUNT' },
        { alias: 'total', fn: 'SUM' },
      ],
    };
    expect(await collectRows(buildMerge(spec, inputsOf([[], []])))).toEqual([{ cnt: 0, total: null }]);
    expect(await collectRows(buildMerge(spec, []))).toEqual([{ cnt: 0, total: null }]);
  });

  it('DISTINCT keeps the merge order and streams', async () => {
    const spec: MergeSpec = {
      kind: 'ordered',
      orderBy: [{ column: 'city', direction: 'ASC', type: 'string' }],
      distinct: {},
      limit: { offset: 0, count: 3 },
    };
    const inputs = inputsOf([[{ city: 'Oslo' }, { city: 'Rome' }], [{ city: 'Lima' }, { city: 'Oslo' }, { city: 'Paris' }, { city: 'Zurich' }]]);
    const pipeline = buildMerge(spec, inputs);
    expect(pipeline.describe().split('\n').slice(0, 3)).toEqual([
      'Limit(offset=0, count=3)',
      '└─ Distinct(all columns)',
      '   └─ MergeSort(1 key: city ASC) over 2 inputs',
    ]);
    expect((await collectRows(pipeline)).map(show)).toEqual(['city="Lima"', 'city="Oslo"', 'city="Paris"']);
    expect(inputs[1]!.exhausted).toBe(false);
  });

  it('a failing input fails the whole pipeline and closes the others', async () => {
    const ok = fakeInput([{ t: 1 }, { t: 2 }]);
    const failing = fakeInput([{ t: 1 }], { failAt: 1, error: new Error('shard s1 lost') });
    const pipeline = buildMerge(
      { kind: 'ordered', orderBy: [{ column: 't', direction: 'ASC', type: 'numeric' }], limit: { offset: 0, count: 10 }, strip: ['t'] },
      [ok, failing],
    );
    await expect(collectRows(pipeline)).rejects.toThrow('shard s1 lost');
    expect(ok.closed).toBe(true);
  });

  it('rejects an ordered merge without sort keys', () => {
    expect(() => buildMerge({ kind: 'ordered', orderBy: [] }, [])).toThrow(/\[BUG\] invalid merge spec/);
  });

  it('GROUP BY, HAVING, ORDER BY, LIMIT over random partitions equal the unsharded answer', async () => {
    const orderBy: readonly SortKey[] = [
      { column: 'cnt', direction: 'DESC', type: 'numeric' },
      { column: 'g', direction: 'ASC', type: 'string' },
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { maxLength: 50 }),
        fc.integer({ min: 1, max: 5 }),
        fc.infiniteStream(fc.nat()),
        fc.nat({ max: 6 }),
        fc.nat({ max: 6 }),
        async (values, k, choices, offset, count) => {
          const countBy = (vs: readonly string[]): Row[] => {
            const counts = new Map<string, number>();
            for (const v of vs) counts.set(v, (counts.get(v) ?? 0) + 1);
            return [...counts].map(([g, cnt]) => ({ g, cnt }));
          };
          const parts: string[][] = Array.from({ length: k }, () => []);
          for (const v of values) parts[choices.next().value % k]!.push(v);
          const spec: MergeSpec = {
            kind: 'ordered',
            orderBy,
            groupBy: [{ column: 'g' }],
            aggregates: [{ alias: 'cnt', fn: 'COUNT' }],
            having: { predicate: (row) => Number(row['cnt']) >= 2 },
            limit: { offset, count },
          };
          const merged = await collectRows(buildMerge(spec, inputsOf(parts.map(countBy))));
          const expected = countBy(values)
            .filter((row) => Number(row['cnt']) >= 2)
            .sort(createRowComparator(orderBy))
            .slice(offset, offset + count);
          expect(merged).toEqual(expected);
        },
      ),
    );
  });
});

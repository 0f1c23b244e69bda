import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collectRows } from './collect-rows.js';
import { createLimit } from './limit.js';
import { createMergeSort } from './merge-sort.js';
import { createRowComparator, type SortKey } from './row-comparator.js';
import type { Row } from './row.js';
import { fakeInput, show } from './testing/fake-input.js';

const byT: readonly SortKey[] = [{ column: 't', direction: 'ASC', type: 'numeric' }];

describe('MergeSort', () => {
  it('merges sorted inputs into one sorted stream', async () => {
    const merged = createMergeSort(
      [fakeInput([{ t: 1 }, { t: 4 }, { t: 9 }]), fakeInput([{ t: '2' }, { t: '3' }]), fakeInput([]), fakeInput([{ t: 5n }])],
      byT,
    );
    expect((await collectRows(merged)).map(show)).toEqual(['t=1', 't="2"', 't="3"', 't=4', 't=5n', 't=9']);
    expect(merged.describe()).toBe('MergeSort(1 key: t ASC) over 4 inputs');
  });

  it('breaks ties by input index, then by arrival order', async () => {
    const merged = createMergeSort(
      [
        fakeInput([{ t: 1, at: 'a1' }, { t: 2, at: 'a2' }, { t: 2, at: 'a3' }]),
        fakeInput([{ t: 1, at: 'b1' }, { t: 2, at: 'b2' }]),
        fakeInput([{ t: 0, at: 'c1' }, { t: 2, at: 'c2' }]),
      ],
      byT,
    );
    expect((await collectRows(merged)).map((row) => row['at'])).toEqual(['c1', 'a1', 'b1', 'a2', 'a3', 'b2', 'c2']);
  });

  it('asks every input for its first row, then pulls at most one row ahead per input', async () => {
    const log: string[] = [];
    const merged = createMergeSort(
      [
        fakeInput([{ t: 1 }, { t: 3 }, { t: 5 }], { name: 's0', log }),
        fakeInput([{ t: 2 }, { t: 4 }], { name: 's1', log }),
      ],
      byT,
    );
    const iterator = merged[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual({ t: 1 });
    expect(log).toEqual(['s0: next → t=1', 's1: next → t=2']);
    expect((await iterator.next()).value).toEqual({ t: 2 });
    expect(log.slice(2)).toEqual(['s0: next → t=3']);
    // The row after t=2 is only pulled when the consumer asks for one more.
    await iterator.return?.();
    expect(log.slice(3)).toEqual(['s0: return', 's1: return']);
  });

  it('reads an input to its end without closing it', async () => {
    const inputs = [fakeInput([{ t: 1 }]), fakeInput([{ t: 2 }])];
    await collectRows(createMergeSort(inputs, byT));
    expect(inputs.map((input) => [input.exhausted, input.closed])).toEqual([
      [true, false],
      [true, false],
    ]);
  });

  it('holds O(inputs) rows under a limit: a deep page pulls offset + count + inputs - 1 rows at most', async () => {
    const inputs = [0, 1, 2, 3].map((shard) => fakeInput(Array.from({ length: 100 }, (_, i) => ({ t: i * 4 + shard }))));
    const page = await collectRows(createLimit(createMergeSort(inputs, byT), 50, 10));
    expect(page.map((row) => row['t'])).toEqual([50, 51, 52, 53, 54, 55, 56, 57, 58, 59]);
    expect(inputs.reduce((sum, input) => sum + input.pulled, 0)).toBeLessThanOrEqual(50 + 10 + 4 - 1);
    expect(inputs.every((input) => input.closed)).toBe(true);
  });

  it('propagates a failure before the first row and closes the other inputs', async () => {
    const log: string[] = [];
    const inputs = [
      fakeInput([{ t: 1 }], { name: 's0', log }),
      fakeInput([{ t: 2 }], { name: 's1', log, failAt: 0, error: new Error('connection lost') }),
      fakeInput([{ t: 3 }], { name: 's2', log }),
    ];
    await expect(collectRows(createMergeSort(inputs, byT))).rejects.toThrow('connection lost');
    expect([...log].sort()).toEqual(['s0: next → t=1', 's0: return', 's1: next → error connection lost', 's2: next → t=3', 's2: return']);
    expect(inputs[1]!.closed).toBe(false);
  });

  it('reports the lowest failing input when several fail before their first row', async () => {
    const inputs = [
      fakeInput([], { failAt: 0, error: new Error('first') }),
      fakeInput([], { failAt: 0, error: new Error('second') }),
    ];
    await expect(collectRows(createMergeSort(inputs, byT))).rejects.toThrow('first');
  });

  it('propagates a failure mid-stream and closes the other inputs', async () => {
    const log: string[] = [];
    const inputs = [
      fakeInput([{ t: 1 }, { t: 3 }, { t: 5 }], { name: 's0', log }),
      fakeInput([{ t: 2 }, { t: 4 }], { name: 's1', log, failAt: 1, error: new Error('timeout') }),
    ];
    const seen: Row[] = [];
    await expect(
      (async () => {
        for await (const row of createMergeSort(inputs, byT)) seen.push(row);
      })(),
    ).rejects.toThrow('timeout');
    expect(seen.map(show)).toEqual(['t=1', 't=2']);
    expect(log.slice(-2)).toEqual(['s1: next → error timeout', 's0: return']);
    expect(inputs.map((input) => input.closed)).toEqual([true, false]);
  });

  it('closes every input when a value cannot be compared', async () => {
    const inputs = [fakeInput([{ t: 1 }, { t: 'oops' }]), fakeInput([{ t: 2 }, { t: 3 }])];
    await expect(collectRows(createMergeSort(inputs, byT))).rejects.toThrow(/cannot order "oops"/);
    expect(inputs[1]!.closed).toBe(true);
  });

  it('surfaces an error of return() when the consumer stops early', async () => {
    const inputs = [fakeInput([{ t: 1 }, { t: 2 }], { closeError: new Error('release failed') }), fakeInput([{ t: 3 }])];
    const iterator = createMergeSort(inputs, byT)[Symbol.asyncIterator]();
    await iterator.next();
    await expect(iterator.return?.()).rejects.toThrow('release failed');
    expect(inputs[1]!.closed).toBe(true);
  });

  it('merges nothing from no inputs', async () => {
    expect(await collectRows(createMergeSort([], byT))).toEqual([]);
  });

  describe('properties', () => {
    const keys: readonly SortKey[] = [
      { column: 'k', direction: 'DESC', type: 'numeric' },
      { column: 's', direction: 'ASC', type: 'string' },
    ];
    const compare = createRowComparator(keys);
    const rowsArb = fc.array(
      fc.record({ k: fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constant(null)), s: fc.constantFrom('a', 'b', 'B', 'é', '\u{1F600}', '\uFFFD') }),
      { maxLength: 60 },
    );

    it('splitting sorted rows into k sorted inputs and merging them gives the stable global order', async () => {
      await fc.assert(
        fc.asyncProperty(rowsArb, fc.integer({ min: 1, max: 6 }), fc.infiniteStream(fc.nat()), async (rows, k, choices) => {
          const tagged = rows.map((row, id) => ({ ...row, id }));
          const parts: Row[][] = Array.from({ length: k }, () => []);
          for (const row of tagged) parts[choices.next().value % k]!.push(row);
          for (const part of parts) part.sort(compare);
          // Ties are deterministic: lower input first, then the order within the input.
          const expected = parts
            .flatMap((part, input) => part.map((row, position) => ({ row, input, position })))
            .sort((a, b) => compare(a.row, b.row) || a.input - b.input || a.position - b.position)
            .map((entry) => entry.row);
          const merged = await collectRows(createMergeSort(parts.map((part) => fakeInput(part)), keys));
          expect(merged).toEqual(expected);
        }),
      );
    });

    it('with a unique tiebreaker, merge + offset/limit equals sorting everything and slicing', async () => {
      const withId: readonly SortKey[] = [...keys, { column: 'id', direction: 'ASC', type: 'numeric' }];
      const compareWithId = createRowComparator(withId);
      await fc.assert(
        fc.asyncProperty(
          rowsArb,
          fc.integer({ min: 1, max: 6 }),
          fc.infiniteStream(fc.nat()),
          fc.nat({ max: 70 }),
          fc.option(fc.nat({ max: 70 }), { nil: undefined }),
          async (rows, k, choices, offset, count) => {
            const tagged = rows.map((row, id) => ({ ...row, id: String(id) }));
            const parts: Row[][] = Array.from({ length: k }, () => []);
            for (const row of tagged) parts[choices.next().value % k]!.push(row);
            // Each shard ran `ORDER BY … LIMIT 0, offset + count`.
            const inputs = parts.map((part) => fakeInput(part.sort(compareWithId).slice(0, count === undefined ? undefined : offset + count)));
            const page = await collectRows(createLimit(createMergeSort(inputs, withId), offset, count));
            const all = [...tagged].sort(compareWithId);
            expect(page).toEqual(all.slice(offset, count === undefined ? undefined : offset + count));
          },
        ),
      );
    });
  });
});

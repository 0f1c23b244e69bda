import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collectRows } from './collect-rows.js';
import { createLimit } from './limit.js';
import { fakeInput } from './testing/fake-input.js';

const numbered = (n: number) => Array.from({ length: n }, (_, id) => ({ id }));

describe('Limit', () => {
  it('skips offset rows then yields count', async () => {
    const limit = createLimit(fakeInput(numbered(10)), 3, 4);
    expect((await collectRows(limit)).map((row) => row['id'])).toEqual([3, 4, 5, 6]);
    expect(limit.describe()).toBe('Limit(offset=3, count=4)');
  });

  it('without count yields everything after the offset', async () => {
    const limit = createLimit(fakeInput(numbered(5)), 3, undefined);
    expect((await collectRows(limit)).map((row) => row['id'])).toEqual([3, 4]);
    expect(limit.describe()).toBe('Limit(offset=3, count=all)');
  });

  it('stops pulling and closes its input as soon as the page is full', async () => {
    const log: string[] = [];
    const input = fakeInput(numbered(100), { name: 's', log });
    const iterator = createLimit(input, 2, 2)[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual({ id: 2 });
    expect((await iterator.next()).value).toEqual({ id: 3 });
    // Closed before the consumer asks again: the shard streams are released with the last row.
    expect(input.closed).toBe(true);
    expect(input.pulled).toBe(4);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    expect(log.at(-1)).toBe('s: return');
  });

  it('with count 0 never opens its input', async () => {
    const input = fakeInput(numbered(3));
    expect(await collectRows(createLimit(input, 0, 0))).toEqual([]);
    expect(input.opened).toBe(0);
  });

  it('passes an input failure through', async () => {
    await expect(collectRows(createLimit(fakeInput(numbered(3), { failAt: 1 }), 0, 5))).rejects.toThrow('in failed');
  });

  it('rejects a negative or fractional offset or count', () => {
    expect(() => createLimit(fakeInput([]), -1, 1)).toThrow(/offset/);
    expect(() => createLimit(fakeInput([]), 0, 1.5)).toThrow(/count/);
  });

  it('equals slicing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 30 }), fc.nat({ max: 40 }), fc.option(fc.nat({ max: 40 }), { nil: undefined }), async (n, offset, count) => {
        const rows = numbered(n);
        const input = fakeInput(rows);
        const page = await collectRows(createLimit(input, offset, count));
        expect(page).toEqual(rows.slice(offset, count === undefined ? undefined : offset + count));
        if (count !== undefined) expect(input.pulled).toBeLessThanOrEqual(offset + count);
      }),
    );
  });
});

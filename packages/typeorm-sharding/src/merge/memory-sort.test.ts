import { describe, expect, it } from 'vitest';
import { collectRows } from './collect-rows.js';
import { createMemorySort } from './memory-sort.js';
import { fakeInput } from './testing/fake-input.js';

describe('MemorySort', () => {
  it('sorts all rows stably', async () => {
    const sort = createMemorySort(
      fakeInput([
        { g: 'a', cnt: '2' },
        { g: 'b', cnt: '10' },
        { g: 'c', cnt: '2' },
        { g: 'd', cnt: null },
      ]),
      [{ column: 'cnt', direction: 'DESC', type: 'numeric' }],
    );
    expect((await collectRows(sort)).map((row) => row['g'])).toEqual(['b', 'a', 'c', 'd']);
    expect(sort.describe()).toBe('MemorySort(1 key: cnt DESC)');
  });
});

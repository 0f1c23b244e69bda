import { describe, expect, it } from 'vitest';
import { collectRows } from './collect-rows.js';
import { createFilter } from './filter.js';
import { fakeInput, show } from './testing/fake-input.js';

describe('Filter', () => {
  it('keeps the rows the predicate accepts', async () => {
    const having = createFilter(fakeInput([{ g: 'a', cnt: 1 }, { g: 'b', cnt: 3 }, { g: 'c', cnt: 2 }]), (row) => Number(row['cnt']) >= 2, 'cnt >= 2');
    expect((await collectRows(having)).map(show)).toEqual(['g="b" cnt=3', 'g="c" cnt=2']);
    expect(having.describe()).toBe('Filter(cnt >= 2)');
  });

  it('propagates a predicate error and closes its input', async () => {
    const input = fakeInput([{ x: 1 }, { x: 2 }]);
    const failing = createFilter(input, () => {
      throw new Error('bad predicate');
    });
    await expect(collectRows(failing)).rejects.toThrow('bad predicate');
    expect(input.closed).toBe(true);
  });
});

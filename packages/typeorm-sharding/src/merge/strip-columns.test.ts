import { describe, expect, it } from 'vitest';
import { collectRows } from './collect-rows.js';
import { createStripColumns } from './strip-columns.js';
import { fakeInput, show } from './testing/fake-input.js';

describe('StripColumns', () => {
  it('removes the derived columns and leaves the input rows untouched', async () => {
    const row = { id: 1, __sk0: 'x', name: 'a', __avg_sum_1: '3' };
    const strip = createStripColumns(fakeInput([row]), ['__sk0', '__avg_sum_1', '__absent']);
    expect((await collectRows(strip)).map(show)).toEqual(['id=1 name="a"']);
    expect(Object.keys(row)).toEqual(['id', '__sk0', 'name', '__avg_sum_1']);
    expect(strip.describe()).toBe('StripColumns(__sk0, __avg_sum_1, __absent)');
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collectRows } from './collect-rows.js';
import { createDistinct } from './distinct.js';
import { fakeInput, show } from './testing/fake-input.js';

describe('Distinct', () => {
  it('keeps the first of equal full rows, in order', async () => {
    const distinct = createDistinct(
      fakeInput([
        { a: 1, b: 'x' },
        { a: 1n, b: 'x' },
        { a: '1', b: 'x' },
        { a: null, b: 'x' },
        { a: 1, b: 'X' },
        { a: undefined, b: 'x' },
      ]),
    );
    expect((await collectRows(distinct)).map(show)).toEqual(['a=1 b="x"', 'a="1" b="x"', 'a=null b="x"', 'a=1 b="X"']);
    expect(distinct.describe()).toBe('Distinct(all columns)');
  });

  it('compares the given columns under their collations', async () => {
    const distinct = createDistinct(fakeInput([{ name: 'Ann', n: 1 }, { name: 'ann ', n: 2 }, { name: 'Bob', n: 3 }]), [
      { column: 'name', collation: 'case-insensitive' },
    ]);
    expect((await collectRows(distinct)).map(show)).toEqual(['name="Ann" n=1', 'name="Bob" n=3']);
    expect(distinct.describe()).toBe('Distinct(name)');
  });

  it('treats dates, bytes and JSON by content', async () => {
    const rows = [
      { d: new Date(5), b: Buffer.from('ab'), j: { x: 1, y: [1] } },
      { d: new Date(5), b: Buffer.from('ab'), j: { y: [1], x: 1 } },
    ];
    expect(await collectRows(createDistinct(fakeInput(rows)))).toHaveLength(1);
  });

  it('equals deduplicating by value', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ a: fc.integer({ min: 0, max: 3 }), b: fc.constantFrom('x', 'y', null) })), async (rows) => {
        const expected = [...new Map(rows.map((row) => [JSON.stringify(row), row])).values()];
        expect(await collectRows(createDistinct(fakeInput(rows)))).toEqual(expected);
      }),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { describeValue } from './describe-value.js';

describe('describeValue', () => {
  it.each([
    [null, 'null'],
    [undefined, 'undefined'],
    [-0, 'number -0'],
    [1.5, 'number 1.5'],
    [12n, 'bigint 12n'],
    ['a"b', 'string "a\\"b"'],
    [false, 'boolean false'],
    [new Date(Number.NaN), 'a Date (Invalid Date)'],
    [[1, 2], 'an array of length 2'],
    [new Uint8Array(3), 'a Uint8Array of 3 bytes'],
    [{}, 'an object'],
    [Object.create(null), 'an object'],
    [new Map(), 'an object of class Map'],
  ])('describes %o as %s', (value, text) => {
    expect(describeValue(value)).toBe(text);
  });

  it('truncates long text', () => {
    expect(describeValue('x'.repeat(100))).toBe(`string "${'x'.repeat(59)}…`);
  });

  it('does not throw for a hostile object', () => {
    const hostile = new Proxy({}, { get: () => { throw new Error('no'); } });
    expect(describeValue(hostile)).toBe('an object');
  });
});

import { describe, expect, it } from 'vitest';
import { collectRows } from './collect-rows.js';
import { createConcat } from './concat.js';
import { createListedOrder } from './listed-order.js';
import { UnsupportedShardingError } from '../errors/index.js';

async function* rows(...values: Record<string, unknown>[]) {
  yield* values;
}

describe('createListedOrder', () => {
  it('returns rows in the order their keys were listed, numbers matched by value whatever their form', async () => {
    const input = createConcat([rows({ id: 1, v: 'a' }, { id: '3', v: 'c' }), rows({ id: 5n, v: 'e' })]);
    const out = await collectRows(createListedOrder(input, ['id'], [['5'], [1], [3]]));
    expect(out.map((r) => r.v)).toEqual(['e', 'a', 'c']);
  });

  it('refuses a row whose key matches no listed tuple (the server matched it by a collation): its place is unknown', async () => {
    const listed = createListedOrder(rows({ k: 'z' }, { k: 'X' }), ['k'], [['x'], ['z']]);
    const error = await collectRows(listed).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedShardingError);
    expect((error as Error).message).toMatch(/k = "X".*Add an ORDER BY/);
  });

  it('composite keys: every column must match, numbers by value', async () => {
    const input = rows({ a: 1, b: 'p' }, { a: '2', b: 'q' });
    expect((await collectRows(createListedOrder(input, ['a', 'b'], [[2, 'q'], [1, 'p']]))).map((r) => r.b)).toEqual(['q', 'p']);
    const wrong = createListedOrder(rows({ a: 1, b: 'q' }), ['a', 'b'], [[1, 'p'], [2, 'q']]);
    await expect(collectRows(wrong)).rejects.toBeInstanceOf(UnsupportedShardingError);
  });
});

import { describe, expect, it } from 'vitest';
import { collectRows } from './collect-rows.js';
import { createConcat } from './concat.js';
import { createListedOrder } from './listed-order.js';

async function* rows(...values: Record<string, unknown>[]) {
  yield* values;
}

describe('createListedOrder', () => {
  it('returns rows in the order their keys were listed, numbers matched by value whatever their form', async () => {
    const input = createConcat([rows({ id: 1, v: 'a' }, { id: '3', v: 'c' }), rows({ id: 5n, v: 'e' })]);
    const out = await collectRows(createListedOrder(input, ['id'], [['5'], [1], [3]]));
    expect(out.map((r) => r.v)).toEqual(['e', 'a', 'c']);
  });

  it('keeps rows that match no listed key last, in arrival order', async () => {
    const out = await collectRows(createListedOrder(rows({ k: 'x' }, { k: 'y' }, { k: 'z' }), ['k'], [['z']]));
    expect(out.map((r) => r.k)).toEqual(['z', 'x', 'y']);
  });
});

import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITIES, OrderItem } from './support/entities.js';
import { openFixture, type Backend, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';

// Issue 14: `findBy([{ a, b }, …])` with thousands of composite keys (an OR of ANDs, one column
// the shard key) overflowed the stack in a recursive walk of the statement's tree, and every
// shard was sent every tuple instead of its own.

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];

describe.each(backends)('findBy() with thousands of composite keys on %s', (backend) => {
  let fx: Fixture;
  const items = Array.from({ length: 3000 }, (_, i) => ({ id: String(i + 1), orderId: String((i % 700) + 1), sku: `k${i % 13}` }));
  beforeAll(async () => {
    fx = await openFixture(backend, ENTITIES, 4);
    for (const ds of [fx.plain, fx.sharded]) await ds.getRepository(OrderItem).insert(items);
  });
  afterAll(async () => fx?.close());

  it.each([2000, 3000])('%i keys: the same rows as one database, or a typed refusal', async (n) => {
    const keys = items.slice(0, n).map(({ id, orderId }) => ({ id, orderId }));
    // SQLite itself refuses a tree this deep ("Expression tree is too large"): then both must fail alike.
    const read = (ds: typeof fx.plain) =>
      ds.getRepository(OrderItem).find({ where: keys, order: { id: 'ASC' } }).then(
        (rows) => ({ rows: rows.map((r) => r.id) }),
        (e: Error) => ({ error: e.constructor.name === 'ShardQueryError' ? 'QueryFailedError' : e.constructor.name, message: e.message.replace(/ \(on shard \w+\)$/, '') }),
      );
    const plain = await read(fx.plain);
    fx.physical.length = 0;
    const sharded = await read(fx.sharded);
    if ('error' in sharded && sharded.error === 'UnsupportedShardingError') return;
    // SQLite's limit is per statement: one database refuses the whole OR, each shard holds its
    // own part of it. Then the rows must be those the keys name (ids 1..n), or the same refusal.
    const tooDeep = 'error' in plain && /Expression tree is too large/.test(plain.message);
    if (tooDeep && !('error' in sharded)) expect(sharded).toEqual({ rows: keys.map((k) => Number(k.id)) });
    else expect(sharded).toEqual(plain);
    if ('error' in sharded) return;
    // Each shard is sent only its own keys: the terms of all physical statements add up to n.
    const terms = fx.physical.map((e) => e.sql.split(/ OR /i).length);
    expect(terms.reduce((a, b) => a + b, 0)).toBe(n);
    expect(new Set(fx.physical.map((e) => e.shard)).size).toBe(4);
  });
});

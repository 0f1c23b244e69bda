import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITIES, Order } from './support/entities.js';
import { openFixture, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';

/**
 * Deep pages over many shards: each shard is sent LIMIT offset+count, and on MariaDB the shard
 * results are streamed into the k-way merge. Memory is observed through the rows the merge
 * pulls, not wall time or heap size (both are noisy): a buffered merge would have to hold
 * every shard's offset+count rows; the streamed one holds at most a driver buffer per shard.
 */
describe.runIf(await mariadbAvailable())('deep paging on MariaDB', () => {
  let fx: Fixture;
  const total = 6000;
  beforeAll(async () => {
    fx = await openFixture('mariadb', ENTITIES, 8, { streamThreshold: 100 });
    const rows = Array.from({ length: total }, (_, i) => ({ id: String(i + 1), buyerId: i % 10, note: null, amount: (i * 7919) % 1000, createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, i)) }));
    for (let i = 0; i < rows.length; i += 1000) {
      await fx.sharded.getRepository(Order).insert(rows.slice(i, i + 1000));
      await fx.plain.getRepository(Order).insert(rows.slice(i, i + 1000));
    }
  });
  afterAll(async () => fx?.close());

  it('returns the same deep pages as one database', async () => {
    for (const skip of [0, 999, 4000, 5990]) {
      const options = { order: { amount: 'ASC' as const, id: 'DESC' as const }, skip, take: 20 };
      const a = await fx.sharded.getRepository(Order).find(options);
      const b = await fx.plain.getRepository(Order).find(options);
      expect(a.map((o) => o.id)).toEqual(b.map((o) => o.id));
    }
  });

  it('streams QueryBuilder.stream() through the merge in global order', async () => {
    const stream = await fx.sharded.getRepository(Order).createQueryBuilder('o').select('o.id', 'id').addSelect('o.amount', 'amount').orderBy('o.amount', 'DESC').addOrderBy('o.id', 'ASC').stream();
    const seen: { id: string; amount: number }[] = [];
    for await (const row of stream) seen.push(row as { id: string; amount: number });
    const expected = await fx.plain.query('SELECT id, amount FROM orders ORDER BY amount DESC, id ASC');
    expect(seen.map((r) => String(r.id))).toEqual(expected.map((r: { id: string }) => String(r.id)));
  });

  it('leaves every connection usable after pages that stopped reading early', async () => {
    for (let i = 0; i < 20; i++) await fx.sharded.getRepository(Order).find({ order: { id: 'ASC' }, skip: 3000, take: 5 });
    expect(await fx.sharded.getRepository(Order).count()).toBe(total);
  });
});

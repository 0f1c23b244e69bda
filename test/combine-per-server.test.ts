import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { In } from 'typeorm';
import { ENTITIES, Order, OrderItem } from './support/entities.js';
import { openFixture, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';

describe.runIf(await mariadbAvailable())('combinePerServer on MariaDB (8 shards, one server)', () => {
  let fx: Fixture;
  const ids = Array.from({ length: 300 }, (_, i) => String(i + 1));
  beforeAll(async () => {
    fx = await openFixture('mariadb', ENTITIES, 8, { combinePerServer: true });
    const rows = ids.map((id, i) => ({ id, buyerId: i % 5, note: i % 3 ? 'x' : null, amount: i, createdAt: new Date(Date.UTC(2024, 0, 1, 0, i)) }));
    for (const ds of [fx.sharded, fx.plain]) {
      await ds.getRepository(Order).insert(rows);
      await ds.getRepository(OrderItem).insert(ids.map((id) => ({ id, orderId: id, sku: `s${id}` })));
    }
    fx.physical.length = 0;
  });
  afterAll(async () => fx?.close());

  it('reaches the server once for a scattered IN read, with the same rows', async () => {
    const wanted = ['3', '17', '42', '99', '150', '151', '220', '299', '1000'];
    const a = await fx.sharded.getRepository(Order).find({ where: { id: In(wanted), buyerId: In([0, 1, 2, 3]) }, relations: { items: true } });
    const b = await fx.plain.getRepository(Order).find({ where: { id: In(wanted), buyerId: In([0, 1, 2, 3]) }, relations: { items: true } });
    const shape = (list: Order[]) => list.map((o) => `${o.id}:${o.items.map((i) => i.id).join(',')}`).sort();
    expect(shape(a)).toEqual(shape(b));
    expect(fx.physical).toHaveLength(1);
    expect(fx.physical[0]!.sql).toMatch(/UNION ALL/);
    expect(fx.physical[0]!.sql).toMatch(/FROM `tsh_\d+_\d+_s\d`\.`orders`/);
    expect(fx.physical[0]!.sql).toMatch(/JOIN `tsh_\d+_\d+_s\d`\.`order_items`/);
  });

  it('qualifies every table of a comma join, so each branch reads its own shard', async () => {
    fx.physical.length = 0;
    const sql = 'SELECT o.id, i.sku FROM orders o, order_items i WHERE i.orderId = o.id AND o.id IN (3, 17, 42, 99, 150, 151, 220)';
    const sorted = (rows: { id: string; sku: string }[]) => rows.map((r) => `${r.id}:${r.sku}`).sort();
    expect(sorted(await fx.sharded.query(sql))).toEqual(sorted(await fx.plain.query(sql)));
    expect(fx.physical).toHaveLength(1);
    expect(fx.physical[0]!.sql).toMatch(/FROM `tsh_\d+_\d+_s\d`\.`orders` o, `tsh_\d+_\d+_s\d`\.`order_items` i/);
  });

  it('does not combine reads the merge must order or page, nor reads inside a transaction', async () => {
    fx.physical.length = 0;
    const options = { where: { id: In(['3', '17', '42', '99', '150']) }, order: { amount: 'DESC' as const }, take: 3 };
    expect((await fx.sharded.getRepository(Order).find(options)).map((o) => o.id)).toEqual((await fx.plain.getRepository(Order).find(options)).map((o) => o.id));
    expect(fx.physical.some((e) => /UNION ALL/.test(e.sql))).toBe(false);
    fx.physical.length = 0;
    await fx.sharded.transaction(async (em) => {
      await em.getRepository(Order).update({ id: '3' }, { note: 'in-tx' });
      const seen = await em.getRepository(Order).findBy({ id: In(['3', '17', '42', '99']) });
      expect(seen.find((o) => o.id === '3')?.note).toBe('in-tx');
    });
    expect(fx.physical.some((e) => /UNION ALL/.test(e.sql))).toBe(false);
  });
});

import 'reflect-metadata';
import { afterEach, describe, expect, it } from 'vitest';
import { In } from 'typeorm';
import { ENTITIES, Order, Region, Buyer } from './support/entities.js';
import { openFixture, type Fixture } from './support/backends.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const order = (id: number, extra: Partial<Order> = {}): Order =>
  Object.assign(new Order(), { id: String(id), buyerId: id % 3, note: null, amount: id * 10, createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, id)), ...extra });

describe('sharded data source on SQLite', () => {
  it('saves each order on the shard its key hashes to, and finds it again', async () => {
    fx = await openFixture('sqlite', ENTITIES, 4);
    const ds = fx.sharded;
    await ds.getRepository(Order).save(Array.from({ length: 20 }, (_, i) => order(i + 1)));
    for (let id = 1; id <= 20; id++) {
      const shard = ds.shardOf(Order, id);
      for (const name of ds.shardNames) {
        const rows = await ds.getShardDataSource(name).query('SELECT id FROM orders WHERE id = ?', [id]);
        expect(rows.length, `order ${id} on ${name}`).toBe(name === shard ? 1 : 0);
      }
    }
    const found = await ds.getRepository(Order).findOneBy({ id: '7' });
    expect(found?.amount).toBe(70);
  });

  it('prunes an IN list: each shard receives only its own values', async () => {
    fx = await openFixture('sqlite', ENTITIES, 4);
    const ds = fx.sharded;
    await ds.getRepository(Order).save(Array.from({ length: 20 }, (_, i) => order(i + 1)));
    fx.physical.length = 0;
    const ids = ['1', '2', '4', '5', '9', '13', '17'];
    const rows = await ds.getRepository(Order).find({ where: { id: In(ids) } });
    expect(rows.map((r) => String(r.id)).sort()).toEqual([...ids].sort());
    const seen = new Map<string, string>();
    for (const e of fx.physical) {
      const values = [...e.sql.matchAll(/IN \(([^)]*)\)/g)].flatMap((m) => m[1]!.split(',').map((v) => v.trim()));
      const params = e.parameters.map(String);
      for (const v of [...values.filter((x) => x !== '?'), ...params]) {
        expect(seen.has(v), `value ${v} sent twice`).toBe(false);
        seen.set(v, e.shard);
        expect(ds.shardOf(Order, v)).toBe(e.shard);
      }
    }
    expect([...seen.keys()].sort()).toEqual([...ids].sort());
  });

  it('puts broadcast rows on every shard and unsharded rows on the default shard', async () => {
    fx = await openFixture('sqlite', ENTITIES, 3);
    const ds = fx.sharded;
    await ds.getRepository(Region).save([{ id: 1, name: 'north' }, { id: 2, name: 'south' }]);
    await ds.getRepository(Buyer).save([{ id: 1, name: 'ann' }]);
    for (const name of ds.shardNames) {
      expect(await ds.getShardDataSource(name).query('SELECT COUNT(*) AS c FROM regions')).toEqual([{ c: 2 }]);
    }
    expect(await ds.getShardDataSource('s0').query('SELECT name FROM buyers')).toEqual([{ name: 'ann' }]);
    await expect(ds.getShardDataSource('s1').query('SELECT name FROM buyers')).rejects.toThrow(/no such table/);
    expect((await ds.getRepository(Region).find({ order: { id: 'ASC' } })).map((r) => r.name)).toEqual(['north', 'south']);
    expect(await ds.getRepository(Buyer).findOneBy({ id: 1 })).toMatchObject({ name: 'ann' });
  });
});

import 'reflect-metadata';
import { afterEach, describe, expect, it } from 'vitest';
import { In, type DataSource } from 'typeorm';
import { MissingShardKeyError, ShardQueryError, UnsupportedShardingError } from '../packages/typeorm-sharding/src/index.js';
import { ENTITIES, Order, Region } from './support/entities.js';
import { openFixture, type Backend, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];

const order = (id: number): Partial<Order> => ({ id: String(id), buyerId: id % 3, note: null, amount: id, createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, id)) });

/** Ids of the orders each shard holds, read on the shard DataSources directly. */
async function idsPerShard(fx: Fixture): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const name of fx.sharded.shardNames) {
    const rows: { id: unknown }[] = await fx.sharded.getShardDataSource(name).query('SELECT id FROM orders ORDER BY id');
    out[name] = rows.map((r) => String(r.id));
  }
  return out;
}

describe.each(backends)('writes on %s', (backend) => {
  let fx: Fixture;
  afterEach(async () => fx?.close());

  it('splits a multi-row INSERT per shard: every row on its shard, one statement per shard', async () => {
    fx = await openFixture(backend, ENTITIES, 4);
    const ids = Array.from({ length: 40 }, (_, i) => i + 1);
    await fx.sharded.getRepository(Order).insert(ids.map(order));
    const inserts = fx.physical.filter((e) => /^INSERT/i.test(e.sql));
    expect(new Set(inserts.map((e) => e.shard)).size).toBe(inserts.length);
    const placed = await idsPerShard(fx);
    for (const id of ids) {
      const home = fx.sharded.shardOf(Order, id);
      for (const [shard, held] of Object.entries(placed)) expect(held.includes(String(id)), `order ${id} on ${shard}`).toBe(shard === home);
    }
    expect(inserts.reduce((n, e) => n + e.rowCount, 0)).toBe(40);
  });

  it('refuses a row without a shard-key value and writes nothing of that statement', async () => {
    fx = await openFixture(backend, ENTITIES, 4);
    const rows = [order(1), order(2), { ...order(3), id: undefined }];
    const error = await fx.sharded.getRepository(Order).insert(rows as never).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(MissingShardKeyError);
    expect((error as Error).message).toMatch(/Row 3 of an INSERT into sharded table "orders"/);
    expect(Object.values(await idsPerShard(fx)).flat()).toEqual([]);
    expect(fx.physical.filter((e) => /^INSERT/i.test(e.sql))).toEqual([]);
  });

  it('rolls back a transaction on every shard it touched', async () => {
    fx = await openFixture(backend, ENTITIES, 4);
    await fx.sharded.getRepository(Order).insert([order(100)]);
    const failed = fx.sharded.transaction(async (em) => {
      await em.getRepository(Order).insert(Array.from({ length: 12 }, (_, i) => order(i + 1)));
      await em.getRepository(Order).update({ id: '100' }, { note: 'changed' });
      throw new Error('application failure');
    });
    await expect(failed).rejects.toThrow('application failure');
    expect(Object.values(await idsPerShard(fx)).flat()).toEqual(['100']);
    expect((await fx.sharded.getRepository(Order).findOneBy({ id: '100' }))?.note).toBeNull();
  });

  it('commits a transaction on every shard it touched, and save() works inside one', async () => {
    fx = await openFixture(backend, ENTITIES, 4);
    await fx.sharded.transaction(async (em) => {
      await em.getRepository(Order).save(Array.from({ length: 12 }, (_, i) => order(i + 1)));
      await em.getRepository(Region).save({ id: 1, name: 'north' });
      // Reads inside the transaction see its own writes.
      expect(await em.getRepository(Order).countBy({ id: In(['1', '2', '3']) })).toBe(3);
    });
    expect(Object.values(await idsPerShard(fx)).flat().sort()).toEqual(Array.from({ length: 12 }, (_, i) => String(i + 1)).sort());
    for (const name of fx.sharded.shardNames) {
      expect(await fx.sharded.getShardDataSource(name).query('SELECT name FROM regions')).toEqual([{ name: 'north' }]);
    }
  });

  it('a shard that joins after ROLLBACK TO SAVEPOINT still has that savepoint (the next ROLLBACK TO reaches it)', async () => {
    fx = await openFixture(backend, ENTITIES, 4);
    const ids = Array.from({ length: 20 }, (_, i) => i + 1);
    const [first, second, third] = [ids[0]!, ids.find((id) => fx.sharded.shardOf(Order, id) !== fx.sharded.shardOf(Order, ids[0]!))!, 20];
    const runner = fx.sharded.createQueryRunner();
    try {
      await runner.startTransaction();
      await runner.query('SAVEPOINT sp');
      await runner.manager.getRepository(Order).insert(order(first));
      await runner.query('ROLLBACK TO SAVEPOINT sp');
      // `second` lives on a shard the transaction has not touched yet: it joins now.
      await runner.manager.getRepository(Order).insert(order(second));
      await runner.query('ROLLBACK TO SAVEPOINT sp');
      await runner.manager.getRepository(Order).insert(order(third));
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    expect(Object.values(await idsPerShard(fx)).flat()).toEqual([String(third)]);
  });

  it('routes UPDATE and DELETE by key and adds up affected rows', async () => {
    fx = await openFixture(backend, ENTITIES, 4);
    await fx.sharded.getRepository(Order).insert(Array.from({ length: 20 }, (_, i) => order(i + 1)));
    fx.physical.length = 0;
    const updated = await fx.sharded.getRepository(Order).update({ id: In(['1', '2', '3', '4', '5']) }, { note: 'x' });
    expect(updated.affected).toBe(5);
    const shardsHit = new Set(fx.physical.map((e) => e.shard));
    expect(shardsHit).toEqual(new Set(['1', '2', '3', '4', '5'].map((id) => fx.sharded.shardOf(Order, id))));
    const deleted = await fx.sharded.getRepository(Order).delete({ buyerId: 1 });
    expect(deleted.affected).toBe(7);
    expect(await fx.sharded.getRepository(Order).count()).toBe(13);
    expect(await fx.sharded.getRepository(Order).countBy({ note: 'x' })).toBe(3);
  });

  it('refuses to UPDATE the shard key (the row would have to move)', async () => {
    fx = await openFixture(backend, ENTITIES, 2);
    await fx.sharded.getRepository(Order).insert([order(1)]);
    await expect(fx.sharded.getRepository(Order).update({ id: '1' }, { id: '2' })).rejects.toBeInstanceOf(UnsupportedShardingError);
    await expect(fx.sharded.getRepository(Order).update({ buyerId: 1 }, { id: '1' })).rejects.toBeInstanceOf(UnsupportedShardingError);
    expect(Object.values(await idsPerShard(fx)).flat()).toEqual(['1']);
  });

  // Issue 8, item 22: `update({ id }, { ...dto })` where the DTO repeats the unchanged key.
  it('allows an UPDATE that sets the shard key to the value the row is routed by, like one database', async () => {
    fx = await openFixture(backend, ENTITIES, 2);
    for (const ds of [fx.sharded, fx.plain]) await ds.getRepository(Order).insert([order(1), order(2)]);
    for (const ds of [fx.sharded, fx.plain]) {
      const result = await ds.getRepository(Order).update({ id: '1' }, { id: '1', buyerId: 42 });
      expect(result.affected).toBe(1);
    }
    const read = async (ds: DataSource) => (await ds.getRepository(Order).find({ order: { id: 'ASC' } })).map((o) => [String(o.id), o.buyerId]);
    expect(await read(fx.sharded)).toEqual(await read(fx.plain));
    expect(Object.values(await idsPerShard(fx)).flat().sort()).toEqual(['1', '2']);
  });

  it('fails a scattered read with a typed error naming the shard and the SQL when one shard fails, returning no rows', async () => {
    fx = await openFixture(backend, ENTITIES, 4);
    await fx.sharded.getRepository(Order).insert(Array.from({ length: 20 }, (_, i) => order(i + 1)));
    // A real fault: the table is gone on one shard.
    await fx.sharded.getShardDataSource('s2').query('DROP TABLE order_items');
    await fx.sharded.getShardDataSource('s2').query('DROP TABLE orders');
    const error = await fx.sharded.getRepository(Order).find().then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ShardQueryError);
    expect((error as ShardQueryError).shard).toBe('s2');
    expect((error as ShardQueryError).sql).toMatch(/FROM (`[^`]+`\.)?[`"]orders[`"]/);
    // The other shards still answer routed queries.
    const healthy = Array.from({ length: 20 }, (_, i) => String(i + 1)).filter((id) => fx.sharded.shardOf(Order, id) !== 's2');
    expect((await fx.sharded.getRepository(Order).findBy({ id: In(healthy) })).length).toBe(healthy.length);
  });
});

import 'reflect-metadata';
import { afterEach, describe, expect, it } from 'vitest';
import { ShardQueryError } from '../packages/typeorm-sharding/src/index.js';
import { ENTITIES, Order } from './support/entities.js';
import { openFixture, type Fixture } from './support/backends.js';

// A scattered read over more SQLite shards than the window outside a transaction runs each
// shard's statement at once, with no promise per shard (`executeNow` in execute/executor.ts):
// the same rows, events and failures as statement by statement.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const order = (id: number): Order =>
  Object.assign(new Order(), { id: String(id), buyerId: id % 3, note: null, amount: id * 10, createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, id)) });

describe('a scattered read over SQLite shards, run at once', () => {
  it('counts and finds as one database, with one event per shard, in shard order', async () => {
    fx = await openFixture('sqlite', ENTITIES, 8, { concurrency: 2 });
    const orders = Array.from({ length: 40 }, (_, i) => order(i + 1));
    await fx.sharded.getRepository(Order).save(orders);
    await fx.plain.getRepository(Order).save(orders);
    fx.physical.length = 0;
    expect(await fx.sharded.getRepository(Order).count()).toBe(await fx.plain.getRepository(Order).count());
    expect(fx.physical.map((e) => e.shard)).toEqual(fx.sharded.shardNames);
    expect(fx.physical.reduce((n, e) => n + e.rowCount, 0)).toBe(8);
    const sorted = { order: { id: 'ASC' as const } };
    expect((await fx.sharded.getRepository(Order).find(sorted)).map((o) => String(o.id))).toEqual((await fx.plain.getRepository(Order).find(sorted)).map((o) => String(o.id)));
  });

  it("fails with the failing shard's typed error, reports it, and runs no later shard", async () => {
    fx = await openFixture('sqlite', ENTITIES, 8, { concurrency: 2 });
    await fx.sharded.getShardDataSource('s3').query('DROP TABLE "orders"');
    fx.physical.length = 0;
    const error = await fx.sharded.getRepository(Order).count().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShardQueryError);
    expect((error as ShardQueryError).shard).toBe('s3');
    expect(String((error as Error).message)).toMatch(/no such table/);
    expect(fx.physical.map((e) => e.shard)).toEqual(['s0', 's1', 's2', 's3']);
    expect(fx.physical[3]!.error).toBeDefined();
  });

  it('inside a transaction the statements run as before (one after the other, on the transaction)', async () => {
    fx = await openFixture('sqlite', ENTITIES, 8, { concurrency: 2 });
    await fx.sharded.getRepository(Order).save(Array.from({ length: 16 }, (_, i) => order(i + 1)));
    const counted = await fx.sharded.transaction(async (em) => {
      await em.getRepository(Order).delete({ id: '1' });
      return em.getRepository(Order).count();
    });
    expect(counted).toBe(15);
    expect(await fx.sharded.getRepository(Order).count()).toBe(15);
  });
});

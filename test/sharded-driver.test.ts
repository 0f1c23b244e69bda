import 'reflect-metadata';
import { afterEach, describe, expect, it } from 'vitest';
import { UnsupportedShardingError } from '../packages/typeorm-sharding/src/index.js';
import { ENTITIES, Order } from './support/entities.js';
import { openFixture, type Backend, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];

describe.each(backends)('ds.driver of a ShardedDataSource on %s', (backend) => {
  let fx: Fixture;
  afterEach(async () => fx?.close());

  const connectionMember = backend === 'sqlite' ? 'databaseConnection' : 'pool';

  it('refuses its connection state with a typed error that names what to use instead', async () => {
    fx = await openFixture(backend, ENTITIES, 3);
    const driver = fx.sharded.driver as unknown as Record<string, unknown>;
    let thrown: unknown;
    try {
      void driver[connectionMember];
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UnsupportedShardingError);
    expect((thrown as Error).message).toContain(`ds.getShardDataSource(name).driver.${connectionMember}`);
    // The suggested replacement answers.
    expect((fx.sharded.getShardDataSource('s1').driver as unknown as Record<string, unknown>)[connectionMember]).toBeDefined();
    const open = backend === 'sqlite' ? 'createDatabaseConnection' : 'obtainMasterConnection';
    expect(() => (driver[open] as () => unknown)()).toThrow(UnsupportedShardingError);
    expect(() => (driver.connect as () => unknown)()).toThrow(UnsupportedShardingError);
  });

  it('answers what TypeORM reads while building SQL, as the default shard\'s driver does', async () => {
    fx = await openFixture(backend, ENTITIES, 3);
    const own = fx.sharded.driver;
    const shard = fx.sharded.getShardDataSource('s0').driver;
    expect(own.escape('orders')).toBe(shard.escape('orders'));
    expect(own.options.type).toBe(shard.options.type);
    expect(own.version).toBe(shard.version);
    const column = fx.sharded.getMetadata(Order).findColumnWithPropertyName('createdAt')!;
    expect(own.normalizeType(column)).toBe(shard.normalizeType(column));
  });

  it('createQueryRunner() hands out the routing runner: nothing runs unrouted through ds.driver', async () => {
    fx = await openFixture(backend, ENTITIES, 3);
    const runner = fx.sharded.driver.createQueryRunner('master');
    try {
      await runner.manager.getRepository(Order).insert([1, 2, 3, 4, 5, 6].map((id) => ({ id: String(id), buyerId: 1, note: null, amount: id, createdAt: new Date(Date.UTC(2024, 0, id)) })));
    } finally {
      await runner.release();
    }
    for (const shard of fx.sharded.shardNames) {
      const ids = ((await fx.sharded.getShardDataSource(shard).query('SELECT id FROM orders')) as { id: unknown }[]).map((r) => String(r.id)).sort();
      expect(ids, shard).toEqual(['1', '2', '3', '4', '5', '6'].filter((id) => fx.sharded.shardOf(Order, id) === shard));
    }
  });
});

import 'reflect-metadata';
import { afterEach, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { ENTITIES, Order, Region } from './support/entities.js';
import { openFixture, type Fixture } from './support/backends.js';

describe('PRAGMA on SQLite shards answers as one database', () => {
  let fx: Fixture;
  afterEach(async () => fx?.close());

  const both = async (sql: string) => ({ plain: await fx.plain.query(sql), sharded: await fx.sharded.query(sql) });
  /** The structured result (`records`, as TypeORM's own code asks for it) and the raw one. */
  const structured = async (ds: DataSource, sql: string) => {
    const { records, raw } = await ds.createQueryRunner().query(sql, [], true);
    return { records, raw };
  };

  it.each([
    'PRAGMA read_uncommitted',
    'PRAGMA main.read_uncommitted',
    'PRAGMA foreign_keys',
    'PRAGMA user_version',
    'PRAGMA table_info("orders")',
    'PRAGMA table_xinfo("regions")',
    'PRAGMA index_list("orders")',
    'PRAGMA table_info("buyers")',
  ])('%s returns the rows of one database (not one copy per shard, not nothing)', async (sql) => {
    fx = await openFixture('sqlite', ENTITIES, 4);
    const { plain, sharded } = await both(sql);
    expect(plain.length).toBeGreaterThan(0);
    expect(sharded).toEqual(plain);
    expect(await structured(fx.sharded, sql)).toEqual(await structured(fx.plain, sql));
  });

  it('read_uncommitted set by hand or by a transaction reads back as set, on every shard', async () => {
    fx = await openFixture('sqlite', ENTITIES, 4);
    const read = async () => (await both('PRAGMA read_uncommitted')).sharded;
    for (const ds of [fx.plain, fx.sharded]) await ds.query('PRAGMA read_uncommitted = 1');
    expect(await both('PRAGMA read_uncommitted')).toEqual({ plain: [{ read_uncommitted: 1 }], sharded: [{ read_uncommitted: 1 }] });
    for (const ds of [fx.plain, fx.sharded] as DataSource[]) {
      await ds.transaction('SERIALIZABLE', (em) => em.getRepository(Order).findOneBy({ id: '7' }));
    }
    expect(await read()).toEqual([{ read_uncommitted: 0 }]);
    for (const ds of [fx.plain, fx.sharded] as DataSource[]) {
      await ds.transaction('READ UNCOMMITTED', (em) => em.getRepository(Region).find());
    }
    expect(await both('PRAGMA read_uncommitted')).toEqual({ plain: [{ read_uncommitted: 1 }], sharded: [{ read_uncommitted: 1 }] });
    for (const name of fx.sharded.shardNames) {
      expect(await fx.sharded.getShardDataSource(name).query('PRAGMA read_uncommitted'), name).toEqual([{ read_uncommitted: 1 }]);
    }
  });
});

import 'reflect-metadata';
import { afterEach, describe, expect, it } from 'vitest';
import { Column, Entity, In, PrimaryGeneratedColumn, type DataSource } from 'typeorm';
import { Broadcast, BroadcastDivergenceError } from '../packages/typeorm-sharding/src/index.js';
import { ENTITIES, Region } from './support/entities.js';
import { openFixture, type Backend, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];

/** A broadcast table whose ids the database generates (the same on every copy while the copies agree). */
@Entity('countries')
@Broadcast()
class Country {
  @PrimaryGeneratedColumn({ type: 'int' })
  id!: number;

  @Column('varchar', { length: 40 })
  name!: string;
}

const regions = (ids: number[]) => ids.map((id) => ({ id, name: `r${id}` }));

describe.each(backends)('writes to a broadcast table on %s report what one database reports', (backend) => {
  let fx: Fixture;
  afterEach(async () => fx?.close());
  const q = (sql: string) => (backend === 'sqlite' ? sql : sql.replace(/"/g, '`'));

  /** Runs the same call on both sources and returns both answers. */
  const both = async <T>(call: (ds: DataSource) => Promise<T>): Promise<{ plain: T; sharded: T }> => ({ plain: await call(fx.plain), sharded: await call(fx.sharded) });

  it('insert, update and delete through repositories: affected rows and generated values as on one database', async () => {
    fx = await openFixture(backend, [...ENTITIES, Country], 4);
    const inserted = await both((ds) => ds.getRepository(Region).insert(regions([1, 2, 3])));
    expect(inserted.sharded.identifiers).toEqual(inserted.plain.identifiers);
    const updated = await both((ds) => ds.getRepository(Region).update({ id: 1 }, { name: 'north' }));
    expect(updated.plain.affected).toBe(1);
    expect(updated.sharded.affected).toBe(updated.plain.affected);
    const many = await both((ds) => ds.getRepository(Region).update({ id: In([1, 2, 3, 4]) }, { name: 'all' }));
    expect(many.sharded.affected).toBe(3);
    const none = await both((ds) => ds.getRepository(Region).update({ id: 99 }, { name: 'x' }));
    expect(none.sharded.affected).toBe(0);
    const deleted = await both((ds) => ds.getRepository(Region).delete({ id: 2 }));
    expect(deleted.sharded.affected).toBe(deleted.plain.affected);
    expect(deleted.sharded.affected).toBe(1);
    for (const name of fx.sharded.shardNames) {
      expect(await fx.sharded.getShardDataSource(name).query(q('SELECT "id", "name" FROM "regions" ORDER BY "id"'))).toEqual([{ id: 1, name: 'all' }, { id: 3, name: 'all' }]);
    }
  });

  it('generated ids of a broadcast insert are the database ones (one copy, not a sum or 0)', async () => {
    fx = await openFixture(backend, [...ENTITIES, Country], 4);
    for (const name of ['a', 'b']) {
      const { plain, sharded } = await both((ds) => ds.getRepository(Country).insert({ name }));
      expect(sharded.identifiers).toEqual(plain.identifiers);
      expect(sharded.generatedMaps).toEqual(plain.generatedMaps);
      // MariaDB returns the ids with RETURNING: one row per inserted row, not one per copy.
      expect(sharded.raw).toEqual(plain.raw);
    }
    const saved = await both((ds) => ds.getRepository(Country).save({ name: 'c' }));
    expect(saved.sharded.id).toBe(saved.plain.id);
  });

  it("raw writes: the driver's own result (mysql2 header, SQLite changes)", async () => {
    fx = await openFixture(backend, [...ENTITIES, Country], 4);
    await both((ds) => ds.getRepository(Region).insert(regions([1, 2, 3])));
    for (const sql of ['UPDATE "regions" SET "name" = ? WHERE "id" <= 2', 'UPDATE "regions" SET "name" = ? WHERE "id" >= 2', 'DELETE FROM "regions" WHERE "id" = 3 OR "name" = ?']) {
      const { plain, sharded } = await both(async (ds) => {
        const runner = ds.createQueryRunner();
        try {
          return await runner.query(q(sql), ['z'], true);
        } finally {
          await runner.release();
        }
      });
      expect(sharded.affected, sql).toBe(plain.affected);
      if (backend === 'mariadb') {
        const fields = ({ affectedRows, changedRows, insertId, info }: Record<string, unknown>) => ({ affectedRows, changedRows, insertId, info });
        expect(fields(sharded.raw), sql).toEqual(fields(plain.raw));
      }
    }
  });

  it('refuses to report one count when the copies disagree, and a transaction can roll the write back', async () => {
    fx = await openFixture(backend, [...ENTITIES, Country], 4);
    await fx.sharded.getRepository(Region).insert(regions([1, 2]));
    // The copies diverge behind the plugin's back: shard s2 loses a row.
    await fx.sharded.getShardDataSource('s2').query(q('DELETE FROM "regions" WHERE "id" = 2'));
    const error = await fx.sharded.getRepository(Region).createQueryBuilder().update().set({ name: 'x' }).execute().then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(BroadcastDivergenceError);
    expect((error as BroadcastDivergenceError).outcomes.map((o) => [o.shard, o.affected])).toEqual([['s0', 2], ['s1', 2], ['s2', 1], ['s3', 2]]);

    const inTransaction = fx.sharded.transaction((em) => em.getRepository(Region).update({ id: 2 }, { name: 'y' }));
    await expect(inTransaction).rejects.toBeInstanceOf(BroadcastDivergenceError);
    for (const name of ['s0', 's1', 's3']) {
      expect(await fx.sharded.getShardDataSource(name).query(q('SELECT "name" FROM "regions" WHERE "id" = 2'))).toEqual([{ name: 'x' }]);
    }
  });
});

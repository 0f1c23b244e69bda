import 'reflect-metadata';
import { afterEach, describe, expect, it } from 'vitest';
import { Column, Entity, ManyToOne, OneToMany, PrimaryGeneratedColumn, type DataSource, type EntityManager } from 'typeorm';
import { Broadcast } from '../packages/typeorm-sharding/src/index.js';
import { ENTITIES, Order, Region } from './support/entities.js';
import { openFixture, type Backend, type Fixture } from './support/backends.js';
import { MARIADB, mariadbAvailable } from './support/mariadb.js';

// Statement savepoints (a write over several shards is atomic inside a user transaction: the
// plugin sets `SAVEPOINT tsh_statement_N` around it) combined with what TypeORM does inside
// transactions: UPDATEs of one save() sent concurrently, nested transactions (savepoints of
// its own), writes that fail, and servers that join the transaction only when first touched.
// Each scenario runs on the sharded source and on one plain DataSource; the rows must match.

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];

@Entity('sp_authors')
@Broadcast()
class Author {
  @PrimaryGeneratedColumn({ type: 'int' }) id!: number;
  @Column('varchar', { length: 40 }) name!: string;
  @OneToMany(() => Photo, (p) => p.author, { cascade: true }) photos!: Photo[];
}

@Entity('sp_photos')
@Broadcast()
class Photo {
  @PrimaryGeneratedColumn({ type: 'int' }) id!: number;
  @Column('varchar', { length: 40 }) url!: string;
  @ManyToOne(() => Author, (a) => a.photos) author!: Author;
}

const entities = [...ENTITIES, Author, Photo];

const newAuthor = (name: string) => Object.assign(new Author(), { name, photos: ['x', 'y'].map((url) => Object.assign(new Photo(), { url })) });
const order = (id: number) => ({ id: String(id), buyerId: id % 3, note: null, amount: id, createdAt: new Date('2024-01-01T00:00:00Z') });

/** Everything the scenarios write, read back in a fixed order. */
async function state(ds: DataSource) {
  return {
    photos: await ds.getRepository(Photo).find({ relations: { author: true }, order: { id: 'ASC' } }),
    orders: await ds.getRepository(Order).find({ order: { id: 'ASC' } }),
    regions: await ds.getRepository(Region).find({ order: { id: 'ASC' } }),
  };
}

/** Runs `scenario` on both sources; the errors it reports and the rows it leaves must be the same. */
async function same(fx: Fixture, scenario: (ds: DataSource) => Promise<unknown>): Promise<void> {
  const outcome = async (ds: DataSource) => scenario(ds).then((v) => ({ ok: v }), (e: unknown) => ({ error: (e as Error).constructor.name }));
  const plain = await outcome(fx.plain);
  const sharded = await outcome(fx.sharded);
  expect(sharded).toEqual(plain);
  expect(await state(fx.sharded)).toEqual(await state(fx.plain));
}

/** A nested transaction that writes over several shards (broadcast and sharded rows), then fails. */
async function failingNested(em: EntityManager, note: string): Promise<string> {
  const failed = await em
    .transaction(async (inner) => {
      await inner.getRepository(Region).update({}, { name: note });
      await inner.getRepository(Order).update({ buyerId: 1 }, { note });
      await inner.getRepository(Photo).update({ url: 'x' }, { url: note });
      throw new Error('inner failure');
    })
    .catch((e: Error) => e.message);
  return failed;
}

/** Shards on two MariaDB servers (two names for one server: two pools, two transactions); SQLite's in-memory shards are one server each. */
function twoServers(backend: Backend): Record<string, unknown> {
  if (backend === 'sqlite') return {};
  return { servers: [0, 1].map((i) => ({ name: `srv${i}`, host: MARIADB.host, port: MARIADB.port, username: MARIADB.user, password: '' })) };
}

describe.each(backends)('statement savepoints inside user transactions on %s', (backend) => {
  let fx: Fixture;
  afterEach(async () => fx?.close());

  it('a cascaded save() between broadcast entities, then again with both photos changed (its UPDATEs run concurrently)', async () => {
    fx = await openFixture(backend, entities, 4);
    await same(fx, async (ds) => {
      const author = await ds.manager.save(newAuthor('a'));
      for (const p of author.photos) p.url = `${p.url}2`;
      author.name = 'b';
      await ds.manager.save(author);
      return author.photos.map((p) => p.id);
    });
  });

  it('concurrent multi-shard writes in one transaction: broadcast, sharded by a non-key column, and a failing one', async () => {
    fx = await openFixture(backend, entities, 4);
    await same(fx, async (ds) => void (await ds.getRepository(Order).insert([1, 2, 3, 4, 5, 6, 7, 8].map(order))));
    await same(fx, async (ds) => void (await ds.getRepository(Region).insert([{ id: 1, name: 'n' }, { id: 2, name: 's' }])));
    await same(fx, (ds) =>
      ds.transaction(async (em) => {
        const results = await Promise.allSettled([
          em.getRepository(Region).update({ id: 1 }, { name: 'north' }),
          em.getRepository(Order).update({ buyerId: 2 }, { note: 'two' }),
          // A duplicate key on one shard: the whole statement is undone, the others stay.
          em.getRepository(Order).insert([order(9), order(10), order(1)]),
          em.getRepository(Region).update({ id: 2 }, { name: 'south' }),
          em.getRepository(Order).update({ buyerId: 0 }, { note: 'zero' }),
        ]);
        return results.map((r) => r.status);
      }),
    );
  });

  it('a nested transaction with multi-shard writes that fails, inside one that commits', async () => {
    fx = await openFixture(backend, entities, 4);
    await same(fx, async (ds) => void (await ds.getRepository(Order).insert([1, 2, 3, 4, 5, 6, 7, 8].map(order))));
    await same(fx, async (ds) => void (await ds.getRepository(Region).insert([{ id: 1, name: 'n' }])));
    await same(fx, async (ds) => void (await ds.manager.save(newAuthor('a'))));
    await same(fx, (ds) =>
      ds.transaction(async (em) => {
        await em.getRepository(Region).update({ id: 1 }, { name: 'outer' });
        const inner = await failingNested(em, 'inner');
        // A nested transaction that commits, with concurrent writes inside.
        await em.transaction(async (ok) => {
          await Promise.all([ok.getRepository(Order).update({ buyerId: 0 }, { note: 'kept' }), ok.save(newAuthor('b'))]);
          return failingNested(ok, 'deeper');
        });
        return inner;
      }),
    );
  });

  it('servers that join the transaction only inside a savepoint (first touched by a multi-shard write there)', async () => {
    fx = await openFixture(backend, entities, 4, {}, twoServers(backend), {}, (i) => (backend === 'mariadb' ? { server: `srv${i % 2}` } : {}));
    await same(fx, async (ds) => void (await ds.getRepository(Order).insert([1, 2, 3, 4, 5, 6, 7, 8].map(order))));
    await same(fx, async (ds) => void (await ds.getRepository(Region).insert([{ id: 1, name: 'n' }])));
    await same(fx, (ds) =>
      ds.transaction(async (em) => {
        // One shard only: one server joins.
        await em.getRepository(Order).update({ id: '1' }, { note: 'first' });
        const inner = await failingNested(em, 'inner');
        // The other servers joined inside the savepoint that was rolled back to and released: they must not replay it.
        await em.getRepository(Order).update({ buyerId: 1 }, { note: 'after' });
        await em.transaction(async (ok) => {
          await ok.getRepository(Order).update({ id: '2' }, { note: 'nested' });
          await ok.getRepository(Region).update({ id: 1 }, { name: 'nested' });
        });
        return inner;
      }),
    );
  });
});

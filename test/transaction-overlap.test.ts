import 'reflect-metadata';
import { afterEach, describe, expect, it } from 'vitest';
import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, QueryFailedError, type DataSource, type EntityManager } from 'typeorm';
import { Broadcast, ShardQueryError, TransactionStateError } from '../packages/typeorm-sharding/src/index.js';
import { ENTITIES, Order } from './support/entities.js';
import { openFixture, type Backend, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];

/** A broadcast parent / child pair with a foreign key, to make a COMMIT fail (deferred check). */
@Entity('parents')
@Broadcast()
class Parent {
  @PrimaryColumn('int')
  id!: number;
}

@Entity('children')
@Broadcast()
class Child {
  @PrimaryColumn('int')
  id!: number;

  @Column('int')
  parentId!: number;

  @ManyToOne(() => Parent)
  @JoinColumn({ name: 'parentId' })
  parent!: Parent;
}

const order = (id: number): Partial<Order> => ({ id: String(id), buyerId: id % 3, note: null, amount: id, createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, id)) });
const tick = () => new Promise((resolve) => setTimeout(resolve, 2));

/** Ids of the orders, read on every shard directly (committed state, outside any transaction). */
async function committedIds(fx: Fixture): Promise<number[]> {
  const ids: number[] = [];
  for (const name of fx.sharded.shardNames) {
    const rows: { id: unknown }[] = await fx.sharded.getShardDataSource(name).query('SELECT id FROM orders');
    ids.push(...rows.map((r) => Number(r.id)));
  }
  return ids.sort((a, b) => a - b);
}

/** A transaction that writes orders on several shards, yielding between statements so that calls overlap. */
const writer = (ids: number[], fail = false) => async (em: EntityManager) => {
  for (const id of ids) {
    await em.getRepository(Order).insert(order(id));
    await tick();
  }
  if (fail) throw new Error(`application failure in ${ids.join(',')}`);
  return ids;
};

/** The data source still works: a transaction, a plain write and a scattered read. */
async function expectUsable(ds: DataSource, id: number): Promise<void> {
  await ds.transaction((em) => em.getRepository(Order).insert(order(id)));
  await ds.getRepository(Order).insert(order(id + 1));
  expect(await ds.getRepository(Order).countBy({ buyerId: order(id).buyerId! })).toBeGreaterThan(0);
}

describe.each(backends)('overlapping transactions on %s', (backend) => {
  let fx: Fixture;
  afterEach(async () => fx?.close());

  it('overlapping ds.transaction() calls each commit or roll back as a whole, and the source stays usable', async () => {
    fx = await openFixture(backend, ENTITIES, 4);
    const outcomes = await Promise.allSettled([
      fx.sharded.transaction(writer([1, 2, 3])),
      fx.sharded.transaction(writer([11, 12, 13], true)),
      fx.sharded.manager.transaction(writer([21, 22, 23])),
      fx.sharded.getRepository(Order).manager.transaction('SERIALIZABLE', writer([31, 32, 33])),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toBe('application failure in 11,12,13');
    expect(await committedIds(fx)).toEqual([1, 2, 3, 21, 22, 23, 31, 32, 33]);
    await expectUsable(fx.sharded, 100);
  });

  it('a failing transaction followed by more work', async () => {
    fx = await openFixture(backend, ENTITIES, 4);
    for (let round = 0; round < 3; round++) {
      await expect(fx.sharded.transaction(writer([round * 10 + 1, round * 10 + 2], true))).rejects.toThrow('application failure');
      await fx.sharded.transaction(writer([round * 10 + 3]));
    }
    expect(await committedIds(fx)).toEqual([3, 13, 23]);
    await expectUsable(fx.sharded, 100);
  });
});

describe.each(backends)('nested transactions on %s, as on one database', (backend) => {
  let fx: Fixture;
  afterEach(async () => fx?.close());

  /** The same nested scenario on both sources: the final rows must be the same. */
  async function onBoth(scenario: (ds: DataSource) => Promise<void>): Promise<void> {
    for (const ds of [fx.plain, fx.sharded]) await scenario(ds);
    const ids = async (ds: DataSource) => (await ds.getRepository(Order).find({ order: { id: 'ASC' } })).map((o) => Number(o.id));
    expect(await ids(fx.sharded)).toEqual(await ids(fx.plain));
  }

  it('an inner em.transaction that fails rolls back only itself; work after it reaches new shards', async () => {
    fx = await openFixture(backend, ENTITIES, 4);
    await onBoth((ds) =>
      ds.transaction(async (em) => {
        await em.getRepository(Order).insert(order(1));
        await expect(em.transaction(writer([2, 3, 4], true))).rejects.toThrow('application failure');
        await em.transaction(writer([5, 6]));
        await em.getRepository(Order).insert([7, 8, 9, 10].map(order));
      }),
    );
    expect(await committedIds(fx)).toEqual([1, 5, 6, 7, 8, 9, 10]);
  }, 20_000);

  it('ds.transaction() called from inside a transaction callback nests instead of waiting for it', async () => {
    fx = await openFixture(backend, ENTITIES, 4);
    await fx.sharded.transaction(async (em) => {
      await em.getRepository(Order).insert(order(1));
      // A service that opens its own transaction through the data source.
      await fx.sharded.transaction(writer([2, 3]));
      await em.getRepository(Order).insert(order(4));
    });
    expect(await committedIds(fx)).toEqual([1, 2, 3, 4]);
  }, 20_000); // a nested call that waited for its parent would never finish

  it.runIf(backend === 'sqlite')('sibling em.transaction calls started together run one after the other', async () => {
    fx = await openFixture(backend, ENTITIES, 4);
    await fx.sharded.transaction(async (em) => {
      const results = await Promise.allSettled([em.transaction(writer([1, 2])), em.transaction(writer([3, 4], true)), em.transaction(writer([5, 6]))]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    });
    expect(await committedIds(fx)).toEqual([1, 2, 5, 6]);
    await expectUsable(fx.sharded, 100);
  }, 20_000);
});

describe('SQLite: transactions started by hand on the shared runner', () => {
  let fx: Fixture;
  afterEach(async () => fx?.close());

  it('a transaction whose COMMIT fails (deferred foreign key) fails as on one database, and the source recovers', async () => {
    fx = await openFixture('sqlite', [...ENTITIES, Parent, Child], 4);
    const errors: unknown[] = [];
    for (const ds of [fx.plain, fx.sharded]) {
      const error = await ds
        .transaction(async (em) => {
          await em.query('PRAGMA defer_foreign_keys = ON');
          await em.getRepository(Child).insert({ id: 1, parentId: 99 });
        })
        .then(() => undefined, (e: unknown) => e);
      errors.push(error);
      // The next transaction (and a save that opens its own) works.
      await ds.transaction(async (em) => {
        await em.getRepository(Parent).insert({ id: 99 });
        await em.getRepository(Child).insert({ id: 1, parentId: 99 });
      });
      await ds.getRepository(Child).save({ id: 2, parentId: 99 });
    }
    const [plain, sharded] = errors as [QueryFailedError, ShardQueryError];
    expect(plain).toBeInstanceOf(QueryFailedError);
    expect(sharded).toBeInstanceOf(ShardQueryError);
    expect(sharded).toMatchObject({ query: plain.query, code: (plain as QueryFailedError & { code?: string }).code, shard: 's0' });
    for (const name of fx.sharded.shardNames) {
      expect(await fx.sharded.getShardDataSource(name).query('SELECT id FROM children ORDER BY id'), name).toEqual([{ id: 1 }, { id: 2 }]);
    }
    await expectUsable(fx.sharded, 100);
  });

  it('a second overlapping startTransaction() is refused as SQLite refuses it, and the source recovers', async () => {
    fx = await openFixture('sqlite', ENTITIES, 4);
    const byHand = async (ids: number[]) => {
      const runner = fx.sharded.createQueryRunner();
      try {
        await runner.startTransaction();
        await writer(ids)(runner.manager);
        await runner.commitTransaction();
        return 'committed';
      } catch (error) {
        await runner.rollbackTransaction().catch(() => undefined);
        throw error;
      } finally {
        await runner.release();
      }
    };
    const outcomes = await Promise.allSettled([byHand([1, 2]), byHand([3, 4])]);
    expect(outcomes.some((o) => o.status === 'rejected' && o.reason instanceof TransactionStateError)).toBe(true);
    const runner = fx.sharded.createQueryRunner();
    expect(runner.isTransactionActive).toBe(false);
    await expectUsable(fx.sharded, 100);
  });
});

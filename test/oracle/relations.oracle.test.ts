import 'reflect-metadata';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { In, MoreThan, type DataSource, type FindOptionsOrder, type FindOptionsRelations, type FindOptionsWhere } from 'typeorm';
import { UnsupportedShardingError } from '../../packages/typeorm-sharding/src/index.js';
import { openFixture, type Fixture } from '../support/backends.js';
import { mariadbAvailable } from '../support/mariadb.js';
import { runsFor } from '../support/oracle-env.js';
import { canonical, loadShop, misplacedRows, shopData } from '../support/shop.js';
import { Coupon, Label, Product, SHOP_ENTITIES, ShopItem, ShopOrder, ShopUser } from '../support/shop-entities.js';

// Differential oracle of relations (issue 8, items 16 and 17): a generated shop is loaded into
// three sharded sources (4 shards with pruning; 3 shards with IN lists cut into batches of 2;
// 4 shards without pruning) and into one plain DataSource, and random find / QueryBuilder /
// RelationQueryBuilder calls through junction tables and co-located relations must give the
// same answer. Shapes the plugin may refuse (the inverse side of a many-to-many loaded with
// one LEFT JOIN across shards) must be refused with UnsupportedShardingError, never answered
// wrongly; random writes through relations must leave every row on its shard.

const RUNS = { sqlite: 60, mariadb: 20 } as const;

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };
const settle = <T>(p: Promise<T>): Promise<Settled<T>> => p.then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error }));
const text = (e: unknown) => (e instanceof Error ? `${e.constructor.name}: ${e.message}` : String(e));

for (const backend of ['sqlite', 'mariadb'] as const) {
  const available = backend === 'sqlite' || (await mariadbAvailable());

  describe.runIf(available)(`relations oracle on ${backend}`, () => {
    const numRuns = runsFor(RUNS, backend);
    const data = shopData(backend === 'sqlite' ? 21 : 22, 40);
    const sources: { name: string; fx: Fixture }[] = [];
    let plain: DataSource;
    const refusals = new Map<string, number>();

    beforeAll(async () => {
      sources.push({ name: 'main (4 shards)', fx: await openFixture(backend, SHOP_ENTITIES, 4, { maxInValuesPerQuery: 1_000_000 }) });
      sources.push({ name: 'tiny (3 shards, maxInValuesPerQuery 2, one statement per shard)', fx: await openFixture(backend, SHOP_ENTITIES, 3, { maxInValuesPerQuery: 2, coalesce: false }) });
      sources.push({ name: 'noPrune (pruning: false)', fx: await openFixture(backend, SHOP_ENTITIES, 4, { pruning: false }) });
      plain = sources[0]!.fx.plain;
      for (const ds of [plain, ...sources.map((s) => s.fx.sharded)]) await loadShop(ds, data);
    });
    afterAll(async () => {
      for (const s of sources.splice(0)) await s.fx.close();
    });

    /** Same answer from every sharded source as from the plain one; `mayRefuse` admits an UnsupportedShardingError instead. */
    async function oracle<T>(label: string, call: (ds: DataSource) => Promise<T>, norm: (value: T) => unknown, mayRefuse = false): Promise<void> {
      const expected = await settle(call(plain));
      for (const s of sources) {
        const got = await settle(call(s.fx.sharded));
        if (!expected.ok) {
          if (got.ok) expect.fail(`${label} [${s.name}]: the plain source threw ${text(expected.error)}; the sharded one answered`);
          continue;
        }
        if (!got.ok) {
          if (mayRefuse && got.error instanceof UnsupportedShardingError && /relationLoadStrategy|shard-key condition/.test(got.error.message)) {
            refusals.set(label.split('(')[0]!, (refusals.get(label.split('(')[0]!) ?? 0) + 1);
            continue;
          }
          expect.fail(`${label} [${s.name}]: the sharded source threw ${text(got.error)}`);
        }
        const actual = norm(got.value);
        const wanted = norm(expected.value);
        if (!isDeepStrictEqual(actual, wanted)) expect(actual, `${label} [${s.name}]`).toEqual(wanted);
      }
    }

    const userIdsArb = fc.array(fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...data.users) }, { weight: 1, arbitrary: fc.constant(999) }), { maxLength: 9 });
    const pageArb = fc.record({ skip: fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }), take: fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }) });

    it('find orders with junction, co-located and many-to-one relations', async () => {
      const whereArb = fc.oneof(
        userIdsArb.map((u): FindOptionsWhere<ShopOrder> => ({ userId: In(u) })),
        fc.tuple(userIdsArb, fc.constantFrom('new', 'paid')).map(([u, status]): FindOptionsWhere<ShopOrder> => ({ userId: In(u), status })),
        fc.constantFrom(...data.users).map((userId): FindOptionsWhere<ShopOrder> => ({ userId })),
        fc.integer({ min: 0, max: 8 }).map((x): FindOptionsWhere<ShopOrder> => ({ total: MoreThan(x) })),
        fc.constant<FindOptionsWhere<ShopOrder>>({}),
      );
      const relationsArb = fc.record({ items: fc.boolean(), labels: fc.boolean(), user: fc.boolean() }).map((r): FindOptionsRelations<ShopOrder> => r);
      const orderArb = fc.constantFrom<FindOptionsOrder<ShopOrder>>({ id: 'ASC' }, { total: 'DESC', id: 'ASC' }, { status: 'ASC', userId: 'DESC', id: 'DESC' });
      await fc.assert(
        fc.asyncProperty(whereArb, relationsArb, orderArb, pageArb, async (where, relations, order, page) => {
          const options = { where, relations, order, ...page };
          await oracle(`find(ShopOrder, ${JSON.stringify(options)})`, (ds) => ds.getRepository(ShopOrder).find(options), (v) => canonical(v));
        }),
        { numRuns },
      );
    });

    it('find items and shipments with their order, users with favorites, coupons and orders.items', async () => {
      await fc.assert(
        fc.asyncProperty(userIdsArb, fc.boolean(), fc.integer({ min: 1, max: 3 }), pageArb, async (users, nested, qty, page) => {
          const items = { where: users.length > 0 ? { userId: In(users) } : { qty: MoreThan(qty) }, relations: { order: nested ? { labels: true, user: true } : true }, order: { id: 'DESC' as const }, ...page };
          await oracle(`find(ShopItem, ${JSON.stringify(items)})`, (ds) => ds.getRepository(ShopItem).find(items), (v) => canonical(v));
          const usersOptions = { where: { id: In(users) }, relations: { favorites: true, coupons: true, orders: { items: nested } }, order: { id: 'ASC' as const } };
          await oracle(`find(ShopUser, ${JSON.stringify(usersOptions)})`, (ds) => ds.getRepository(ShopUser).find(usersOptions), (v) => canonical(v));
        }),
        { numRuns },
      );
    });

    it('QueryBuilder over co-located and junction joins: aggregates grouped by the shard key, filters, pages', async () => {
      await fc.assert(
        fc.asyncProperty(userIdsArb, fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1, max: 6 }), async (users, qty, take) => {
          const filter = (qb: import('typeorm').SelectQueryBuilder<ShopOrder>) => (users.length > 0 ? qb.where('o.userId IN (:...users)', { users }) : qb.where('o.total >= :t', { t: qty }));
          await oracle(
            `orders ⋈ items grouped by userId (users ${JSON.stringify(users)}, qty ${qty})`,
            (ds) => filter(ds.getRepository(ShopOrder).createQueryBuilder('o').innerJoin('o.items', 'i')).andWhere('i.qty >= :qty', { qty }).select('o.userId', 'u').addSelect('COUNT(*)', 'n').addSelect('SUM(i.qty)', 'q').addSelect('MAX(o.total)', 'm').groupBy('o.userId').orderBy('o.userId', 'DESC').getRawMany(),
            (rows) => rows.map((r) => ({ u: Number(r.u), n: Number(r.n), q: Number(r.q), m: Number(r.m) })),
          );
          await oracle(
            `orders leftJoinAndSelect items, labels; take ${take}`,
            (ds) => filter(ds.getRepository(ShopOrder).createQueryBuilder('o').leftJoinAndSelect('o.items', 'i').leftJoinAndSelect('o.labels', 'l')).orderBy('o.total', 'ASC').addOrderBy('o.id', 'ASC').take(take).getMany(),
            (v) => canonical(v),
          );
          await oracle(
            `labels of orders, DISTINCT label names (users ${JSON.stringify(users)})`,
            (ds) => filter(ds.getRepository(ShopOrder).createQueryBuilder('o').innerJoin('o.labels', 'l')).select('DISTINCT l.name', 'name').orderBy('name', 'ASC').getRawMany(),
            (rows) => rows,
          );
        }),
        { numRuns },
      );
    });

    it('the inverse side of many-to-many relations: exact with relationLoadStrategy "query" or a NULL-rejecting filter, refused otherwise', async () => {
      const sides = [
        { entity: Label, relation: 'orders', filter: (x: number) => ({ orders: { total: MoreThan(x) } }) },
        { entity: Coupon, relation: 'users', filter: (x: number) => ({ users: { id: MoreThan(x * 4) } }) },
        { entity: Product, relation: 'fans', filter: (x: number) => ({ fans: { id: MoreThan(x * 4) } }) },
      ] as const;
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(0, 1, 2), fc.constantFrom('join', 'query') as fc.Arbitrary<'join' | 'query'>, fc.boolean(), fc.integer({ min: 0, max: 8 }), async (side, strategy, filtered, x) => {
          const s = sides[side]!;
          const options = { relations: { [s.relation]: true }, where: filtered ? s.filter(x) : {}, order: { id: 'ASC' as const }, relationLoadStrategy: strategy };
          await oracle(`find(${s.entity.name}, ${JSON.stringify(options)})`, (ds) => ds.getRepository(s.entity).find(options as never), (v) => canonical(v), strategy === 'join' && !filtered);
          // TypeORM folds repeated rows into one entity; raw rows and counts show them.
          const raw = (ds: DataSource) => {
            const qb = ds.getRepository(s.entity).createQueryBuilder('x').leftJoin(`x.${s.relation}`, 'r').select('x.id', 'xid').addSelect('r.id', 'rid');
            return (filtered ? qb.where('r.id > :x', { x }) : qb).getRawMany();
          };
          await oracle(`raw ${s.entity.name} LEFT JOIN ${s.relation}${filtered ? ` WHERE r.id > ${x}` : ''}`, raw, (rows) => canonical(rows.map((r) => ({ xid: Number(r.xid), rid: r.rid === null ? null : Number(r.rid) })), true), !filtered);
          await oracle(`relation(${s.entity.name}, ${s.relation}).of(${x}).loadMany()`, (ds) => ds.createQueryBuilder().relation(s.entity, s.relation).of(x).loadMany(), (v) => canonical(v, true));
        }),
        { numRuns },
      );
      expect(refusals.size, 'the refusable shape was generated and refused').toBeGreaterThan(0);
    });

    it('writes through relations (save with changed many-to-many sets, from either side) keep every source equal and every row on its shard', async () => {
      const subsetOf = <T>(xs: readonly T[]) => fc.subarray([...xs], { maxLength: 4 });
      const opArb = fc.oneof(
        fc.tuple(fc.constant('favorites' as const), fc.constantFrom(...data.users), subsetOf(data.products.map((p) => p.id))),
        fc.tuple(fc.constant('labels' as const), fc.constantFrom(...data.orders.map((o) => o.id)), subsetOf(data.labels)),
        fc.tuple(fc.constant('coupon' as const), fc.constantFrom(...data.coupons.map((c) => c.id)), subsetOf(data.users)),
        fc.tuple(fc.constant('fans' as const), fc.constantFrom(...data.products.map((p) => p.id)), subsetOf(data.users)),
      );
      const apply = async (ds: DataSource, [kind, id, ids]: [string, number, number[]]) => {
        if (kind === 'favorites') await ds.getRepository(ShopUser).save({ id, favorites: ids.map((p) => ({ id: p }) as Product) });
        if (kind === 'labels') {
          const order = await ds.getRepository(ShopOrder).findOneByOrFail({ id });
          await ds.getRepository(ShopOrder).save({ ...order, labels: ids.map((l) => ({ id: l }) as Label) });
        }
        if (kind === 'coupon') await ds.getRepository(Coupon).save({ id, users: ids.map((u) => ({ id: u }) as ShopUser) });
        if (kind === 'fans') await ds.getRepository(Product).save({ id, fans: ids.map((u) => ({ id: u }) as ShopUser) });
      };
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 4 }), async (ops) => {
          for (const op of ops) await oracle(`apply ${JSON.stringify(op)}`, (ds) => apply(ds, op as [string, number, number[]]), () => null);
          for (const table of ['shop_user_favorites', 'shop_order_labels', 'shop_coupon_users']) {
            await oracle(`SELECT * FROM ${table} after ${JSON.stringify(ops)}`, (ds) => ds.query(`SELECT * FROM ${table}`), (rows: unknown[]) => canonical(rows, true));
          }
        }),
        { numRuns: Math.ceil(numRuns / 3) },
      );
      for (const s of sources) expect(await misplacedRows(s.fx.sharded), s.name).toEqual([]);
    });
  });
}

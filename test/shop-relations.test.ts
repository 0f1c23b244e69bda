import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { In, MoreThan, type DataSource } from 'typeorm';
import { ShardingConfigError, UnsupportedShardingError } from '../packages/typeorm-sharding/src/index.js';
import { openFixture, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';
import { canonical, expectRefused, expectSame, loadShop, misplacedRows, shopData, tableCounts } from './support/shop.js';
import { Coupon, Label, Product, SHOP_ENTITIES, ShopItem, ShopOrder, ShopShipment, ShopUser } from './support/shop-entities.js';

// Relations over a sharded shop (issue 8, items 5, 6, 16, 17), on SQLite and MariaDB: every call
// runs on a ShardedDataSource (4 shards) and on one plain DataSource with the same data, and
// must give the same answer — or be refused with UnsupportedShardingError naming the fix.

for (const backend of ['sqlite', 'mariadb'] as const) {
  const available = backend === 'sqlite' || (await mariadbAvailable());

  describe.runIf(available)(`shop relations on ${backend}`, () => {
    let fx: Fixture;
    const data = shopData();
    const both = () => [fx.plain, fx.sharded] as DataSource[];
    const same = <T>(label: string, call: (ds: DataSource) => Promise<T>, norm?: (value: T) => unknown) => expectSame(label, fx.plain, fx.sharded, call, norm);

    beforeAll(async () => {
      fx = await openFixture(backend, SHOP_ENTITIES, 4);
      for (const ds of both()) await loadShop(ds, data);
    });
    afterAll(async () => {
      await fx?.close();
    });

    it('places junction tables with their sharded side and writes every row on its shard', async () => {
      const rules = fx.sharded.shardingRules;
      expect(['shop_user_favorites', 'shop_order_labels', 'shop_coupon_users', 'shop_user_clubs'].map((t) => [t, rules.ruleOf(t)?.shardKey?.columnName])).toEqual([
        ['shop_user_favorites', 'shopUsersId'],
        ['shop_order_labels', 'orderUserId'],
        ['shop_coupon_users', 'shopUsersId'],
        ['shop_user_clubs', 'shopUsersId'],
      ]);
      expect(rules.distributionOf('shop_product_tags')).toBe('broadcast');
      expect(await misplacedRows(fx.sharded)).toEqual([]);
      for (const table of ['shop_user_favorites', 'shop_order_labels', 'shop_coupon_users', 'shop_user_clubs', 'shop_items']) {
        let total = 0;
        for (const name of fx.sharded.shardNames) total += await tableCounts(fx.sharded.getShardDataSource(name), table);
        expect(total, table).toBe(await tableCounts(fx.plain, table));
      }
      for (const name of fx.sharded.shardNames) expect(await tableCounts(fx.sharded.getShardDataSource(name), 'shop_product_tags')).toBe(await tableCounts(fx.plain, 'shop_product_tags'));
    });

    it('find with relations from the sharded side: owner many-to-many, co-located and composite many-to-one, nested', async () => {
      await same('users with favorites, coupons, orders.items', (ds) => ds.getRepository(ShopUser).find({ relations: { favorites: true, coupons: true, orders: { items: true, labels: true } }, order: { id: 'ASC' } }));
      await same('orders of two users with labels and items', (ds) => ds.getRepository(ShopOrder).find({ where: { userId: In([2, 7]) }, relations: { labels: true, items: true, user: true }, order: { id: 'DESC' } }));
      await same('items with their order (co-located, joined on orderId)', (ds) => ds.getRepository(ShopItem).find({ relations: { order: { labels: true } }, order: { id: 'ASC' } }));
      await same('shipments with their order (join columns orderId, userId)', (ds) => ds.getRepository(ShopShipment).find({ relations: { order: { items: true } }, order: { id: 'ASC' } }));
      await same('one user by key with everything', (ds) => ds.getRepository(ShopUser).findOne({ where: { id: 5 }, relations: { favorites: { tags: true }, orders: { items: true, labels: true } } }));
      await same('orders with items, paged', (ds) => ds.getRepository(ShopOrder).find({ relations: { items: true }, order: { total: 'DESC', id: 'ASC' }, skip: 3, take: 5 }));
      await same('findAndCount of one user\'s items with their order', (ds) => ds.getRepository(ShopItem).findAndCount({ where: { userId: 3 }, relations: { order: true }, order: { id: 'ASC' }, take: 2 }));
      await same('broadcast only: products with tags', (ds) => ds.getRepository(Product).find({ relations: { tags: true }, order: { id: 'ASC' } }));
    });

    it('QueryBuilder joins through junctions and co-located relations', async () => {
      await same('leftJoinAndSelect items and labels', (ds) =>
        ds.getRepository(ShopOrder).createQueryBuilder('o').leftJoinAndSelect('o.items', 'i').leftJoinAndSelect('o.labels', 'l').where('o.userId IN (:...u)', { u: [1, 2, 3, 9] }).orderBy('o.id', 'ASC').getMany(),
      );
      await same('innerJoin on the relation columns written by hand, counted per user', (ds) =>
        ds.getRepository(ShopOrder).createQueryBuilder('o').innerJoin(ShopItem, 'i', 'i.orderId = o.id').select('o.userId', 'u').addSelect('COUNT(*)', 'n').addSelect('SUM(i.qty)', 'q').groupBy('o.userId').orderBy('o.userId', 'ASC').getRawMany(),
      (rows) => canonical(rows.map((r) => ({ u: Number(r.u), n: Number(r.n), q: Number(r.q) }))));
      await same('favorites joined from users, filtered on the product', (ds) =>
        ds.getRepository(ShopUser).createQueryBuilder('u').innerJoinAndSelect('u.favorites', 'p').where('p.price > :x', { x: 5 }).orderBy('u.id', 'ASC').getMany(),
      );
      await expectRefused('a join of co-located tables on unrelated columns', fx.sharded, (ds) =>
        ds.getRepository(ShopOrder).createQueryBuilder('o').innerJoin(ShopItem, 'i', 'i.qty = o.total').getMany(),
      /without equating their shard keys/, /colocateWith/);
    });

    it('the inverse side of a many-to-many: refused as one LEFT JOIN across shards, exact with relationLoadStrategy "query" or a key', async () => {
      await expectRefused('labels with orders (one LEFT JOIN)', fx.sharded, (ds) => ds.getRepository(Label).find({ relations: { orders: true } }), /keeps the rows of "shop_labels"/, /relationLoadStrategy: 'query'/);
      await expectRefused('products with fans', fx.sharded, (ds) => ds.getRepository(Product).find({ relations: { fans: true } }), /relationLoadStrategy: 'query'/);
      await same('labels with orders, relationLoadStrategy query', (ds) => ds.getRepository(Label).find({ relations: { orders: { items: true } }, order: { id: 'ASC' }, relationLoadStrategy: 'query' }));
      await same('coupons with users (broadcast owner), relationLoadStrategy query', (ds) => ds.getRepository(Coupon).find({ relations: { users: true }, order: { id: 'ASC' }, relationLoadStrategy: 'query' }));
      await same('products with fans and tags, relationLoadStrategy query', (ds) => ds.getRepository(Product).find({ relations: { fans: true, tags: true }, order: { id: 'ASC' }, relationLoadStrategy: 'query' }));
      await same('labels whose orders match (the WHERE rejects the unmatched rows)', (ds) => ds.getRepository(Label).find({ where: { orders: { total: MoreThan(4) } }, order: { id: 'ASC' } }));
      await same('labels of one user (routed to one shard)', (ds) => ds.getRepository(Label).find({ where: { orders: { userId: 3 } }, relations: { orders: true }, order: { id: 'ASC' } }));
      await same('loadMany from the inverse side', (ds) => ds.createQueryBuilder().relation(Label, 'orders').of(2).loadMany(), (v) => canonical(v, true));
      await same('loadMany of fans', (ds) => ds.createQueryBuilder().relation(Product, 'fans').of(3).loadMany(), (v) => canonical(v, true));
    });

    it('two sharded entities that are not co-located: the junction is written, every join through it refused', async () => {
      await expectRefused('users with clubs', fx.sharded, (ds) => ds.getRepository(ShopUser).find({ relations: { clubs: true } }), /"shop_users" and "shop_clubs" without equating their shard keys/);
      await expectRefused('loadMany of clubs', fx.sharded, (ds) => ds.createQueryBuilder().relation(ShopUser, 'clubs').of(1).loadMany(), /without equating their shard keys/);
      await same('the junction rows themselves', (ds) => ds.query('SELECT * FROM shop_user_clubs'), (rows: unknown[]) => canonical(rows, true));
    });

    it('RelationQueryBuilder add / remove on both sides, then save and remove with relations', async () => {
      for (const ds of both()) {
        await ds.createQueryBuilder().relation(ShopUser, 'favorites').of(4).add([1, 2]);
        await ds.createQueryBuilder().relation(ShopUser, 'favorites').of(4).remove(1);
        await ds.createQueryBuilder().relation(Product, 'fans').of(6).add(12);
        await ds.createQueryBuilder().relation(Coupon, 'users').of(3).add([2, 13]);
        // (TypeORM's RelationQueryBuilder cannot address a junction with two owner columns: labels are changed through save.)
        const labelled = await ds.getRepository(ShopOrder).findOneOrFail({ where: { id: 101 }, relations: { labels: true } });
        labelled.labels = [...labelled.labels.slice(1), { id: 4 } as Label];
        await ds.getRepository(ShopOrder).save(labelled);
        const user = await ds.getRepository(ShopUser).findOneOrFail({ where: { id: 9 }, relations: { favorites: true } });
        user.favorites = [...user.favorites.slice(1), { id: 8 } as Product];
        await ds.getRepository(ShopUser).save(user);
        const order = await ds.getRepository(ShopOrder).findOneOrFail({ where: { id: 102 }, relations: { labels: true, items: true } });
        await ds.getRepository(ShopItem).remove(order.items);
        await ds.getRepository(ShopShipment).delete({ orderId: 102, userId: order.userId });
        await ds.getRepository(ShopOrder).remove(order);
      }
      expect(await misplacedRows(fx.sharded)).toEqual([]);
      await same('favorites after the changes', (ds) => ds.getRepository(ShopUser).find({ relations: { favorites: true, coupons: true }, order: { id: 'ASC' } }));
      await same('orders and labels after the changes', (ds) => ds.getRepository(ShopOrder).find({ relations: { labels: true, items: true }, order: { id: 'ASC' } }));
      await same('the label junction after the changes', (ds) => ds.query('SELECT * FROM shop_order_labels'), (rows: unknown[]) => canonical(rows, true));
    });

    it('upserts whose conflict target holds the shard key run; others are refused naming the columns, writing nothing', async () => {
      await same('upsert users on id (the shard key)', async (ds) => {
        await ds.getRepository(ShopUser).upsert([{ id: 3, name: 'three' }, { id: 40, name: 'forty' }], ['id']);
        return ds.getRepository(ShopUser).find({ order: { id: 'ASC' } });
      });
      await same('upsert shipments on (id, userId)', async (ds) => {
        await ds.getRepository(ShopShipment).upsert([{ id: 5000, userId: data.shipments[0]!.userId, orderId: data.shipments[0]!.orderId, carrier: 'fedex' }], ['id', 'userId']);
        return ds.getRepository(ShopShipment).find({ order: { id: 'ASC' } });
      });
      await same('INSERT IGNORE / ON CONFLICT DO NOTHING into users', async (ds) => {
        await ds.createQueryBuilder().insert().into(ShopUser).values([{ id: 3, name: 'ignored' }, { id: 41, name: 'new' }]).orIgnore().execute();
        return ds.getRepository(ShopUser).find({ order: { id: 'ASC' } });
      });
      const before = canonical(await fx.sharded.getRepository(ShopOrder).find({ order: { id: 'ASC' } }));
      // The order 100 of user 1 would be updated by one database; on the shards user 9's copy would be a second order 100.
      await expectRefused('upsert orders on id', fx.sharded, (ds) => ds.getRepository(ShopOrder).upsert([{ id: 100, userId: 9, total: 1, status: 'x' }], ['id']), backend === 'sqlite'
        ? /ON CONFLICT DO UPDATE on \(id\) into sharded table "shop_orders": the conflict target does not contain the shard key "userId"/
        : /ON DUPLICATE KEY UPDATE into sharded table "shop_orders" fires on any unique key, and its primary key \(id\) does not contain the shard key "userId"/);
      const itemUpsert = (ds: DataSource) => ds.getRepository(ShopItem).upsert([{ id: 1000, userId: 1, orderId: 100, sku: 'z', qty: 9 }], ['id', 'userId']);
      if (backend === 'mariadb') {
        // ON DUPLICATE KEY UPDATE would fire on the primary key (id), which may match on another shard.
        await expectRefused('upsert items', fx.sharded, itemUpsert, /its primary key \(id\) does not contain the shard key "userId"/);
      } else {
        // SQLite checks the target itself: items have no unique key (id, userId), on one database as on the shards.
        for (const ds of both()) await expect(itemUpsert(ds)).rejects.toThrow(/ON CONFLICT clause does not match any PRIMARY KEY or UNIQUE constraint/);
      }
      expect(canonical(await fx.sharded.getRepository(ShopOrder).find({ order: { id: 'ASC' } }))).toEqual(before);
    });
  });

  describe.runIf(available)(`initialize() on ${backend} refuses what a shard cannot enforce`, () => {
    it('a junction that cannot follow its owner (a primary key without the shard key gets a global unique index instead)', async () => {
      const { OrderWithoutKeyInPk, LabelledOrder, PlainLabel } = await import('./support/shop-refused-entities.js');
      const accepted = await openFixture(backend, [OrderWithoutKeyInPk], 2);
      expect(accepted.sharded.shardingRules.globalIndexes.map((g) => g.lookupTable)).toEqual(['refused_orders__gidx_id']);
      await accepted.close();
      for (const [entities, pattern] of [
        [[LabelledOrder, PlainLabel], /The junction table "refused_order_labels" of LabelledOrder.labels refers to LabelledOrder by \(id\), which does not contain its shard key "userId"/],
      ] as [Function[], RegExp][]) {
        const error = await openFixture(backend, entities, 2).then(
          async (f) => {
            await f.close();
            return undefined;
          },
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ShardingConfigError);
        expect((error as Error).message).toMatch(pattern);
        expect(error).not.toBeInstanceOf(UnsupportedShardingError);
      }
    });
  });
}

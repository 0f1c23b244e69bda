import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Column, Entity, JoinColumn, ManyToOne, OneToMany, PrimaryColumn, type DataSource } from 'typeorm';
import { Sharded, ShardKey } from '../packages/typeorm-sharding/src/index.js';
import { openFixture, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';
import { expectRefused, expectSame, loadShop, shopData } from './support/shop.js';
import { Product, SHOP_ENTITIES, ShopOrder, ShopUser } from './support/shop-entities.js';

// TypeORM writes `leftJoinAndSelect(a.bs)` followed by `innerJoinAndSelect(bs.cs)` as a
// parenthesised join: `… LEFT JOIN (b INNER JOIN c ON …) ON …` (a row of `a` is kept when it has
// no `b` with a `c`). On MySQL / MariaDB the planner reads the group as joins of the FROM list
// whose tables may all be missing from a row; each call here runs on 4 shards and on one plain
// database with the same shop. (node-sql-parser's SQLite grammar cannot read the group: there
// such a statement is refused as unreadable, see the last case.)

const backends = (await mariadbAvailable()) ? (['mariadb', 'sqlite'] as const) : (['sqlite'] as const);

describe.each(backends)('a LEFT JOIN of a parenthesised inner join on %s', (backend) => {
  let fx: Fixture;
  const data = shopData(11, 16);
  const same = <T>(label: string, call: (ds: DataSource) => Promise<T>) => expectSame(label, fx.plain, fx.sharded, call);

  beforeAll(async () => {
    fx = await openFixture(backend, SHOP_ENTITIES, 4);
    for (const ds of [fx.plain, fx.sharded]) await loadShop(ds, data);
  });
  afterAll(async () => fx?.close());

  const usersWithTaggedFavorites = (ds: DataSource) =>
    ds.getRepository(ShopUser).createQueryBuilder('u').leftJoinAndSelect('u.favorites', 'f').innerJoinAndSelect('f.tags', 't').orderBy('u.id').addOrderBy('f.id').addOrderBy('t.id').getMany();
  const ordersWithItemsOfOrders = (ds: DataSource) =>
    ds.getRepository(ShopOrder).createQueryBuilder('o').leftJoinAndSelect('o.items', 'i').innerJoinAndSelect('i.order', 'io').orderBy('o.id').addOrderBy('i.id').getMany();

  it('answers it across the shards as one database does', async () => {
    // The group is broadcast (products, their tags): joined to each user's favorites on the user's shard.
    fx.roundTrips.length = 0;
    await usersWithTaggedFavorites(fx.sharded);
    // MariaDB: the four shards' statements, database-qualified (tables in the group too), go as one UNION ALL.
    expect(fx.roundTrips.length).toBe(backend === 'mariadb' ? 1 : 4);
    await same('users, favorites with tags', usersWithTaggedFavorites);
    await same('one user, favorites with tags', (ds) =>
      ds.getRepository(ShopUser).createQueryBuilder('u').leftJoinAndSelect('u.favorites', 'f').innerJoinAndSelect('f.tags', 't').where('u.id = :id', { id: 3 }).orderBy('f.id').addOrderBy('t.id').getOne(),
    );
    // The group holds co-located sharded tables (items and their order).
    await same('orders, items with their order', ordersWithItemsOfOrders);
    await same('count of users with the group', (ds) => ds.getRepository(ShopUser).createQueryBuilder('u').leftJoin('u.favorites', 'f').innerJoin('f.tags', 't').getCount());
    await same('a page of users with the group', (ds) =>
      ds.getRepository(ShopUser).createQueryBuilder('u').leftJoinAndSelect('u.favorites', 'f').innerJoinAndSelect('f.tags', 't').orderBy('u.id', 'DESC').skip(2).take(5).getMany(),
    );
  });

  it('refuses it where the rows of a broadcast table would repeat, or the group is not joined on the shard key', async () => {
    // Products (broadcast) keep their rows without a fan: every shard would return them.
    await expectRefused('products, fans with orders', fx.sharded, (ds) =>
      ds.getRepository(Product).createQueryBuilder('p').leftJoinAndSelect('p.fans', 'u').innerJoinAndSelect('u.orders', 'o').getMany(),
    /keeps the rows of "shop_products"/);
    await expectRefused('orders joined to a group of users by total', fx.sharded, (ds) =>
      ds.getRepository(ShopOrder).createQueryBuilder('o').leftJoinAndSelect(ShopUser, 'u', 'u.id = o.total').innerJoinAndSelect('u.favorites', 'f').getMany(),
    /without equating their shard keys/);
  });

});

/** Posts and their comments, co-located by the post's key, each laid out as 2 tables per shard. */
@Entity('nj_posts')
@Sharded({ tables: 2 })
class NjPost {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column('varchar', { length: 20 }) title!: string;
  @OneToMany(() => NjComment, (c) => c.post) comments!: NjComment[];
}

@Entity('nj_comments')
@Sharded({ tables: 2, colocateWith: () => NjPost, uniquePerShard: ['id'] })
class NjComment {
  @PrimaryColumn('int') id!: number;
  @Column('int') @ShardKey() postId!: number;
  @ManyToOne(() => NjPost, (p) => p.comments) @JoinColumn({ name: 'postId' }) post!: NjPost;
}

describe.each(backends)('a parenthesised join over table-per-shard layouts on %s', (backend) => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await openFixture(backend, [NjPost, NjComment], 2);
    for (const ds of [fx.plain, fx.sharded]) {
      await ds.getRepository(NjPost).insert(Array.from({ length: 12 }, (_, i) => ({ id: i + 1, title: `p${i + 1}` })));
      await ds.getRepository(NjComment).insert(Array.from({ length: 20 }, (_, i) => ({ id: 100 + i, postId: (i % 9) + 1 })));
    }
  });
  afterAll(async () => fx?.close());

  it('names each unit\'s physical tables inside the group too', async () => {
    await expectSame('posts, comments with their post', fx.plain, fx.sharded, (ds) =>
      ds.getRepository(NjPost).createQueryBuilder('p').leftJoinAndSelect('p.comments', 'c').innerJoinAndSelect('c.post', 'cp').orderBy('p.id').addOrderBy('c.id').getMany(),
    );
  });
});

import { Column, Entity, JoinColumn, JoinTable, ManyToMany, ManyToOne, OneToMany, PrimaryColumn, Unique } from 'typeorm';
import { Broadcast, Sharded, ShardKey } from '../../packages/typeorm-sharding/src/index.js';

// A small shop for the relation tests (issue 8, items 5, 6, 16, 17). Users, orders, items and
// shipments are sharded by the user id; products, tags, labels and coupons are broadcast; clubs
// are sharded by their own id. Every column names its type (no decorator metadata under vitest).
//
// - orders: primary key `id` (assigned uniquely by the tests, declared unique per shard), plus a
//   unique key (id, userId) that composite join columns can reference;
// - items → orders on `orderId` only: co-located with orders (`colocateWith`), so the relation
//   joins shard by shard and its foreign key is checked by each shard;
// - shipments → orders on (orderId, userId): join columns that contain the shard key;
// - many-to-many: users ↔ products (favorites: a sharded owner and a broadcast side), orders ↔
//   labels (join columns naming the owner's shard key), coupons ↔ users (a broadcast owner and a
//   sharded inverse side), products ↔ tags (both broadcast), users ↔ clubs (two sharded entities
//   that are not co-located: no foreign keys, and every join through it is refused).

@Entity('shop_users')
@Sharded()
export class ShopUser {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column('varchar', { length: 40 }) name!: string;
  @OneToMany(() => ShopOrder, (o) => o.user) orders!: ShopOrder[];
  @ManyToMany(() => Product, (p) => p.fans) @JoinTable({ name: 'shop_user_favorites' }) favorites!: Product[];
  @ManyToMany(() => Coupon, (c) => c.users) coupons!: Coupon[];
  @ManyToMany(() => Club, (c) => c.members, { createForeignKeyConstraints: false }) @JoinTable({ name: 'shop_user_clubs' }) clubs!: Club[];
}

@Entity('shop_orders')
@Sharded({ uniquePerShard: ['id'] })
@Unique(['id', 'userId'])
export class ShopOrder {
  @PrimaryColumn('int') id!: number;
  @Column('int') @ShardKey() userId!: number;
  @Column('int') total!: number;
  @Column('varchar', { length: 20 }) status!: string;
  @ManyToOne(() => ShopUser, (u) => u.orders) @JoinColumn({ name: 'userId' }) user!: ShopUser;
  @OneToMany(() => ShopItem, (i) => i.order) items!: ShopItem[];
  @ManyToMany(() => Label, (l) => l.orders)
  @JoinTable({
    name: 'shop_order_labels',
    joinColumns: [{ name: 'orderId', referencedColumnName: 'id' }, { name: 'orderUserId', referencedColumnName: 'userId' }],
    inverseJoinColumns: [{ name: 'labelId', referencedColumnName: 'id' }],
  })
  labels!: Label[];
}

@Entity('shop_items')
@Sharded({ uniquePerShard: ['id'], colocateWith: () => ShopOrder })
export class ShopItem {
  @PrimaryColumn('int') id!: number;
  @Column('int') @ShardKey() userId!: number;
  @Column('int') orderId!: number;
  @Column('varchar', { length: 20 }) sku!: string;
  @Column('int') qty!: number;
  @ManyToOne(() => ShopOrder, (o) => o.items) @JoinColumn({ name: 'orderId', referencedColumnName: 'id' }) order!: ShopOrder;
}

@Entity('shop_shipments')
@Sharded()
export class ShopShipment {
  @PrimaryColumn('int') id!: number;
  @PrimaryColumn('int') @ShardKey() userId!: number;
  @Column('int') orderId!: number;
  @Column('varchar', { length: 20 }) carrier!: string;
  @ManyToOne(() => ShopOrder)
  @JoinColumn([{ name: 'orderId', referencedColumnName: 'id' }, { name: 'userId', referencedColumnName: 'userId' }])
  order!: ShopOrder;
}

@Entity('shop_products')
@Broadcast()
export class Product {
  @PrimaryColumn('int') id!: number;
  @Column('varchar', { length: 40 }) name!: string;
  @Column('int') price!: number;
  @ManyToMany(() => Tag, (t) => t.products) @JoinTable({ name: 'shop_product_tags' }) tags!: Tag[];
  @ManyToMany(() => ShopUser, (u) => u.favorites) fans!: ShopUser[];
}

@Entity('shop_tags')
@Broadcast()
export class Tag {
  @PrimaryColumn('int') id!: number;
  @Column('varchar', { length: 40 }) name!: string;
  @ManyToMany(() => Product, (p) => p.tags) products!: Product[];
}

@Entity('shop_labels')
@Broadcast()
export class Label {
  @PrimaryColumn('int') id!: number;
  @Column('varchar', { length: 40 }) name!: string;
  @ManyToMany(() => ShopOrder, (o) => o.labels) orders!: ShopOrder[];
}

@Entity('shop_coupons')
@Broadcast()
export class Coupon {
  @PrimaryColumn('int') id!: number;
  @Column('varchar', { length: 40 }) code!: string;
  @ManyToMany(() => ShopUser, (u) => u.coupons) @JoinTable({ name: 'shop_coupon_users' }) users!: ShopUser[];
}

@Entity('shop_clubs')
@Sharded()
export class Club {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column('varchar', { length: 40 }) name!: string;
  @ManyToMany(() => ShopUser, (u) => u.clubs) members!: ShopUser[];
}

export const SHOP_ENTITIES = [ShopUser, ShopOrder, ShopItem, ShopShipment, Product, Tag, Label, Coupon, Club];

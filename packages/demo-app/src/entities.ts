import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Broadcast, Sharded, ShardKey } from 'typeorm-sharding';

/**
 * A buyer and the ids of their orders. Unsharded: it lives on the default shard.
 * Column types here come from decorator metadata (tsc emits it), on purpose.
 */
@Entity('buyers')
export class Buyer {
  @PrimaryColumn()
  id!: number;

  @Column()
  name!: string;
}

/** An order, hash-partitioned by its id across the shards (the articles' e-commerce case). */
@Entity('orders')
@Sharded()
export class Order {
  @PrimaryColumn('bigint')
  @ShardKey()
  id!: string;

  @Column()
  buyerId!: number;

  @Column('varchar', { length: 80 })
  item!: string;

  @Column('datetime')
  createdAt!: Date;
}

/** The same order table partitioned with `mod` (id % shard count), exactly as in the PolarDB-X article. */
@Entity('mod_orders')
@Sharded({ algorithm: 'mod' })
export class ModOrder {
  @PrimaryColumn('bigint')
  @ShardKey()
  id!: string;

  @Column()
  buyerId!: number;
}

/**
 * A reply of the Atlas post-mortem: sharded by thread id, paged by time across shards. Reply
 * ids are assigned by the demo, unique by construction, so the primary key (which does not
 * contain the thread id) is declared unique per shard.
 */
@Entity('post_reply')
@Sharded({ algorithm: 'mod', uniquePerShard: ['id'] })
export class PostReply {
  @PrimaryColumn()
  id!: number;

  @Column()
  @ShardKey()
  tid!: number;

  @Column()
  userId!: number;

  @Column('datetime')
  createTime!: Date;
}

/** An order of the shop: sharded by its id; its items live on the same shard (co-located). */
@Entity('shop_orders')
@Sharded()
export class ShopOrder {
  @PrimaryColumn('bigint')
  @ShardKey()
  id!: string;

  @Column()
  buyerId!: number;
}

/** A line of an order, sharded by its order's id: always on the order's shard. */
@Entity('shop_order_items')
@Sharded({ colocateWith: () => ShopOrder })
export class ShopOrderItem {
  @PrimaryColumn('bigint')
  @ShardKey()
  orderId!: string;

  @PrimaryColumn()
  sku!: string;

  @Column()
  quantity!: number;
}

/** Stock per product: a reference table, with a full copy on every shard. */
@Entity('shop_stock')
@Broadcast()
export class Stock {
  @PrimaryColumn()
  sku!: string;

  @Column()
  quantity!: number;
}

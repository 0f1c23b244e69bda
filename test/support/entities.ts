import { Column, Entity, ManyToOne, OneToMany, JoinColumn, PrimaryColumn } from 'typeorm';
import { Broadcast, Sharded, ShardKey } from '../../packages/typeorm-sharding/src/index.js';

/** Orders, hash-sharded by order id (the articles' e-commerce case). Every column names its type (no decorator metadata under vitest). */
@Entity('orders')
@Sharded()
export class Order {
  @PrimaryColumn('bigint')
  @ShardKey()
  id!: string;

  @Column('int')
  buyerId!: number;

  @Column('varchar', { length: 40, nullable: true })
  note!: string | null;

  @Column('int')
  amount!: number;

  @Column('datetime')
  createdAt!: Date;

  @OneToMany(() => OrderItem, (item) => item.order)
  items!: OrderItem[];
}

/**
 * Items of an order, sharded by their order id: a binding table of `orders`. Item ids are
 * assigned uniquely by the tests, so the primary key is declared unique per shard.
 */
@Entity('order_items')
@Sharded({ uniquePerShard: ['id'] })
export class OrderItem {
  @PrimaryColumn('bigint')
  id!: string;

  @Column('bigint')
  @ShardKey()
  orderId!: string;

  @Column('varchar', { length: 20 })
  sku!: string;

  @ManyToOne(() => Order, (order) => order.items, { createForeignKeyConstraints: false })
  @JoinColumn({ name: 'orderId' })
  order!: Order;
}

/** A reference table copied to every shard. */
@Entity('regions')
@Broadcast()
export class Region {
  @PrimaryColumn('int')
  id!: number;

  @Column('varchar', { length: 40 })
  name!: string;
}

/** Buyers: unsharded, on the default shard. */
@Entity('buyers')
export class Buyer {
  @PrimaryColumn('int')
  id!: number;

  @Column('varchar', { length: 40 })
  name!: string;
}

export const ENTITIES = [Order, OrderItem, Region, Buyer];

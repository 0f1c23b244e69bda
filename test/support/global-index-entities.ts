import 'reflect-metadata';
import { Column, DeleteDateColumn, Entity, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';
import { Broadcast, Sharded, ShardKey } from '../../packages/typeorm-sharding/src/index.js';

/** Users sharded by `id` with a unique `email` (a global unique index) and a unique, nullable `nick`. */
@Entity('gx_users')
@Sharded()
export class GxUser {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column({ type: 'varchar', length: 100, unique: true }) email!: string;
  @Column({ type: 'varchar', length: 40, nullable: true, unique: true }) nick!: string | null;
  @Column({ type: 'varchar', length: 40, default: '' }) name!: string;
  @DeleteDateColumn({ nullable: true }) deletedAt!: Date | null;
}

/** Orders sharded by `userId` whose primary key `id` lacks the shard key (a global unique index). */
@Entity('gx_orders')
@Sharded()
export class GxOrder {
  @PrimaryColumn('int') id!: number;
  @Column('int') @ShardKey() userId!: number;
  @Column('int') amount!: number;
}

/** A broadcast avatar, referenced one-to-one. */
@Entity('gx_avatars')
@Broadcast()
export class GxAvatar {
  @PrimaryColumn('int') id!: number;
}

/** Profiles sharded by `userId` with a one-to-one join column `avatarId` (a global unique index). */
@Entity('gx_profiles')
@Sharded()
export class GxProfile {
  @PrimaryColumn('int') @ShardKey() userId!: number;
  @Column({ type: 'int', nullable: true }) avatarId!: number | null;
  @OneToOne(() => GxAvatar) @JoinColumn({ name: 'avatarId' }) avatar!: GxAvatar | null;
}

export const GX_ENTITIES = [GxUser, GxOrder, GxAvatar, GxProfile];

/** Purchases sharded by `id`, with a lookup index on `buyerId` and a composite one on (`shopId`, `sku`). */
@Entity('gx_purchases')
@Sharded({ lookups: ['buyerId', ['shopId', 'sku']] })
export class GxPurchase {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column('int') buyerId!: number;
  @Column('int') shopId!: number;
  @Column({ type: 'varchar', length: 20, nullable: true }) sku!: string | null;
}


/** Order lines sharded by `orderId` (many rows per shard key) with a lookup index on `productId`: entries count several rows. */
@Entity('gx_lines')
@Sharded({ lookups: ['productId'] })
export class GxLine {
  @PrimaryColumn('int') @ShardKey() orderId!: number;
  @PrimaryColumn('int') line!: number;
  @Column('int') productId!: number;
}

export const LOOKUP_ENTITIES = [GxPurchase, GxLine];

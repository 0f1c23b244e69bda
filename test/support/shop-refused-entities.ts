import { Column, Entity, JoinTable, ManyToMany, PrimaryColumn } from 'typeorm';
import { Broadcast, Sharded, ShardKey } from '../../packages/typeorm-sharding/src/index.js';

// Entities that initialize() must refuse (issue 8, items 6 and 16), for the integration tests.

/** Orders sharded by user whose primary key `id` does not contain the shard key, with no opt-out. */
@Entity('refused_orders')
@Sharded()
export class OrderWithoutKeyInPk {
  @PrimaryColumn('int') id!: number;
  @Column('int') @ShardKey() userId!: number;
}

@Entity('refused_labels')
@Broadcast()
export class PlainLabel {
  @PrimaryColumn('int') id!: number;
}

/** Accepts its primary key per shard, but its junction references it by `id` only. */
@Entity('refused_labelled_orders')
@Sharded({ uniquePerShard: ['id'] })
export class LabelledOrder {
  @PrimaryColumn('int') id!: number;
  @Column('int') @ShardKey() userId!: number;
  @ManyToMany(() => PlainLabel) @JoinTable({ name: 'refused_order_labels' }) labels!: PlainLabel[];
}

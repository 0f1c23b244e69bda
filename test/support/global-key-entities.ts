import { Column, Entity, JoinColumn, ManyToOne, OneToMany, PrimaryColumn } from 'typeorm';
import { Sharded, ShardKey, Snowflake } from '../../packages/typeorm-sharding/src/index.js';

/** Sharded by its Snowflake id under `mod`, the algorithm the ids' low bits could defeat. */
@Entity('gk_orders')
@Sharded({ algorithm: 'mod' })
export class GkOrder {
  @PrimaryColumn('bigint')
  @ShardKey()
  @Snowflake()
  id!: string;

  @Column('varchar', { length: 40 })
  title!: string;
}

/**
 * Sharded by `userId`; its Snowflake primary key lacks the shard key and is accepted as unique by
 * construction. Its column default makes TypeORM read the inserted row back (RETURNING on
 * MariaDB, a SELECT by id on SQLite).
 */
@Entity('gk_notes')
@Sharded()
export class GkNote {
  @PrimaryColumn('bigint')
  @Snowflake()
  id!: string;

  @Column('int')
  @ShardKey()
  userId!: number;

  @Column('varchar', { length: 20, default: 'new' })
  status!: string;

  @Column('varchar', { length: 40 })
  body!: string;
}

/** A Snowflake id in a text column (hash-sharded string key): zero-padded to 19 digits. */
@Entity('gk_tickets')
@Sharded()
export class GkTicket {
  @PrimaryColumn('varchar', { length: 19 })
  @ShardKey()
  @Snowflake()
  code!: string;

  @Column('varchar', { length: 40 })
  subject!: string;
}

/** A cart and its lines, co-located: the lines are sharded by the cart's generated id. */
@Entity('gk_carts')
@Sharded({ algorithm: 'mod' })
export class GkCart {
  @PrimaryColumn('bigint')
  @ShardKey()
  @Snowflake()
  id!: string;

  @Column('varchar', { length: 40 })
  owner!: string;

  @OneToMany(() => GkLine, (line) => line.cart, { cascade: true })
  lines!: GkLine[];
}

@Entity('gk_lines')
@Sharded({ algorithm: 'mod', colocateWith: () => GkCart })
export class GkLine {
  @PrimaryColumn('bigint')
  @Snowflake()
  id!: string;

  @Column('bigint')
  @ShardKey()
  cartId!: string;

  @ManyToOne(() => GkCart, (cart) => cart.lines)
  @JoinColumn({ name: 'cartId' })
  cart!: GkCart;

  @Column('varchar', { length: 40 })
  sku!: string;
}

export const GLOBAL_KEY_ENTITIES = [GkOrder, GkNote, GkTicket, GkCart, GkLine];

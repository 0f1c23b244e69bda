import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Sharded, ShardKey } from '../../packages/typeorm-sharding/src/index.js';

// Tables of the pulled-out subquery tests: the same value columns on a sharded table and on an
// unsharded one, so that a subquery over one compares with the other column for column. Every
// column names its type (vitest emits no decorator metadata).

/** Payments, sharded by id. */
@Entity('sq_payments')
@Sharded()
export class Payment {
  @PrimaryColumn('bigint')
  @ShardKey()
  id!: string;

  @Column('int')
  accountId!: number;

  /** References beyond 2^53 that differ in the last digits. */
  @Column('bigint')
  ref!: string;

  @Column('decimal', { precision: 30, scale: 10 })
  amount!: string;

  @Column('double')
  rate!: number;

  @Column('datetime', { precision: 3 })
  paidAt!: Date;

  @Column('varchar', { length: 20, nullable: true })
  method!: string | null;
}

/** Accounts: unsharded, on the default shard, with the same value columns. */
@Entity('sq_accounts')
export class Account {
  @PrimaryColumn('int')
  id!: number;

  @Column('bigint')
  ref!: string;

  @Column('decimal', { precision: 30, scale: 10 })
  amount!: string;

  @Column('double')
  rate!: number;

  @Column('datetime', { precision: 3 })
  paidAt!: Date;

  @Column('varchar', { length: 20, nullable: true })
  method!: string | null;
}

export const SUBQUERY_ENTITIES = [Payment, Account];

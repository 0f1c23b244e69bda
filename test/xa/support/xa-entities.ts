import 'reflect-metadata';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Broadcast, Sharded, ShardKey } from '../../../packages/typeorm-sharding/src/index.js';

// The tables of entities.mjs (which the child process loads with the built library), declared
// here for the test process, which runs the library from source.

@Entity('xa_accounts')
@Sharded()
export class Account {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column('int') balance!: number;
}

@Entity('xa_legs')
@Sharded()
export class Leg {
  @PrimaryColumn('varchar', { length: 48 }) txid!: string;
  @PrimaryColumn('int') @ShardKey() accountId!: number;
  @Column('int') delta!: number;
  @Column('int') legs!: number;
}

@Entity('xa_stock')
@Broadcast()
export class Stock {
  @PrimaryColumn('int') id!: number;
  @Column('int') qty!: number;
}

export const XA_ENTITIES = [Account, Leg, Stock];

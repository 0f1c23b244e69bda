// Entities of the cross-server transaction tests, in plain JavaScript so that a child process
// can load them with the built library (decorators applied as functions, types explicit).
import 'reflect-metadata';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Broadcast, Sharded, ShardKey } from 'typeorm-sharding';

/** An account, hash-sharded by id. */
export class Account {}
PrimaryColumn('int')(Account.prototype, 'id');
ShardKey()(Account.prototype, 'id');
Column('int')(Account.prototype, 'balance');
Entity('xa_accounts')(Account);
Sharded()(Account);

/** One leg of a transfer, on its account's shard: a transaction's legs are all there or none is. */
export class Leg {}
PrimaryColumn('varchar', { length: 48 })(Leg.prototype, 'txid');
PrimaryColumn('int')(Leg.prototype, 'accountId');
ShardKey()(Leg.prototype, 'accountId');
Column('int')(Leg.prototype, 'delta');
Column('int')(Leg.prototype, 'legs');
Entity('xa_legs')(Leg);
Sharded()(Leg);

/** Stock of a product: a copy on every shard. */
export class Stock {}
PrimaryColumn('int')(Stock.prototype, 'id');
Column('int')(Stock.prototype, 'qty');
Entity('xa_stock')(Stock);
Broadcast()(Stock);

export const ENTITIES = [Account, Leg, Stock];

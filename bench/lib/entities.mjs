// Entities of the benchmark, written in plain JavaScript: decorators are applied by calling
// them as functions, in the order TypeScript would (property decorators first, class
// decorators last). Every column names its type, since there is no decorator metadata.
import 'reflect-metadata';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { Sharded, ShardKey } from 'typeorm-sharding';

/** Orders, hash-sharded by order id: the article's table (64 shards). */
export class Order {}
PrimaryColumn('bigint')(Order.prototype, 'id');
ShardKey()(Order.prototype, 'id');
Column('int')(Order.prototype, 'buyerId');
Column('int')(Order.prototype, 'amount');
Column('varchar', { length: 40 })(Order.prototype, 'note');
Column('datetime')(Order.prototype, 'createdAt');
Entity('orders')(Order);
Sharded()(Order);

/** Rows for the deep-paging case (16 shards), ordered by an indexed timestamp. */
export class Page {}
PrimaryColumn('bigint')(Page.prototype, 'id');
ShardKey()(Page.prototype, 'id');
Column('int')(Page.prototype, 'amount');
Column('varchar', { length: 40 })(Page.prototype, 'note');
Column('datetime')(Page.prototype, 'createdAt');
Index('IDX_pages_createdAt_id', ['createdAt', 'id'])(Page);
Entity('pages')(Page);
Sharded()(Page);

/** Column values of order `id` (deterministic, so every copy holds the same rows). */
export function orderRow(id) {
  return [id, id % 10_007, (id * 37) % 100_000, `order ${id}`, new Date(Date.UTC(2024, 0, 1) + id * 1000)];
}
export const ORDER_COLUMNS = ['id', 'buyerId', 'amount', 'note', 'createdAt'];

/** Column values of page row `id`: timestamps are a permutation of the ids, so shards interleave. */
export function pageRow(id, total) {
  const t = (id * 7919) % (total + 1);
  return [id, id % 1000, `page ${id}`, new Date(Date.UTC(2024, 0, 1) + t * 1000)];
}
export const PAGE_COLUMNS = ['id', 'amount', 'note', 'createdAt'];

/** Accounts of the cross-server transaction case (4 shards on two servers). */
export class XaAccount {}
PrimaryColumn('int')(XaAccount.prototype, 'id');
ShardKey()(XaAccount.prototype, 'id');
Column('int')(XaAccount.prototype, 'balance');
Entity('xa_accounts')(XaAccount);
Sharded()(XaAccount);

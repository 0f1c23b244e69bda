import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Sharded, ShardKey } from '../../packages/typeorm-sharding/src/index.js';

// Extra entities of the differential oracle tests. Every column names its type: vitest's
// transform emits no decorator metadata. All of them share the property names `id`,
// `buyerId` and `amount` with `Order`, so one query generator serves every table.

/** Orders keyed by an UNSIGNED BIGINT: ids up to 2^64 − 1 (MariaDB only; SQLite has no unsigned 64-bit integers). */
@Entity('wide_orders')
@Sharded()
export class WideOrder {
  @PrimaryColumn('bigint', { unsigned: true })
  @ShardKey()
  id!: string;

  @Column('int')
  buyerId!: number;

  @Column('int')
  amount!: number;
}

/** Orders keyed by a string code: a `varchar` shard key (hashed byte for byte). */
@Entity('coded_orders')
@Sharded()
export class CodedOrder {
  @PrimaryColumn('varchar', { length: 40 })
  @ShardKey()
  id!: string;

  @Column('int')
  buyerId!: number;

  @Column('int')
  amount!: number;
}

/** The PolarDB-X article's table: integer keys, `mod` partitioning (key mod shard count). */
@Entity('article_orders')
@Sharded({ algorithm: 'mod' })
export class ArticleOrder {
  @PrimaryColumn('bigint')
  @ShardKey()
  id!: string;

  @Column('int')
  amount!: number;
}

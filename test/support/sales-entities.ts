import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Sharded, ShardKey } from '../../packages/typeorm-sharding/src/index.js';

/**
 * Sales lines of a shop report, hash-sharded by id: exact DECIMAL prices, integer
 * quantities, a DOUBLE weight, text with case variants and NULLs (MariaDB's default `_ci`
 * collation groups and orders them case-insensitively), and dates. Every column names its type.
 */
@Entity('sales')
@Sharded()
export class Sale {
  @PrimaryColumn('bigint')
  @ShardKey()
  id!: string;

  @Column('varchar', { length: 20 })
  region!: string;

  @Column('varchar', { length: 40, nullable: true })
  title!: string | null;

  @Column('decimal', { precision: 10, scale: 2 })
  price!: string;

  @Column('int')
  qty!: number;

  @Column('int', { nullable: true })
  discount!: number | null;

  @Column('double')
  weight!: number;

  @Column('datetime')
  soldAt!: Date;
}

const REGIONS = ['north', 'North', 'south', 'SOUTH', 'east', 'west', 'West'];
const TITLES = ['lamp', 'Lamp', 'chair', 'table', null, 'desk', 'Desk lamp', ''];

/** Deterministic rows with ties, NULLs and case variants. */
export function saleRows(count = 300): Partial<Sale>[] {
  return Array.from({ length: count }, (_, i) => ({
    id: String(i * 7 + 1),
    region: REGIONS[(i * 3) % REGIONS.length]!,
    title: TITLES[(i * 5) % TITLES.length]!,
    price: `${(i * 37) % 100}.${String((i * 13) % 100).padStart(2, '0')}`,
    qty: (i * 11) % 9,
    discount: i % 4 === 0 ? null : (i * 3) % 7,
    weight: ((i * 17) % 23) / 4,
    soldAt: new Date(Date.UTC(2024, i % 12, 1 + (i % 27), (i * 5) % 24)),
  }));
}

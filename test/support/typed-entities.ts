/**
 * One entity per backend holding a column of every type TypeORM maps there, for the
 * column-order tests. Every column names its type (vitest emits no decorator metadata).
 */
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Sharded, ShardKey } from '../../packages/typeorm-sharding/src/index.js';

const ENUM_LABELS = ['zeta', 'alpha', 'Mid', 'beta'];
const SET_MEMBERS = ['x', 'a', 'M'];

/** Every MySQL/MariaDB column type TypeORM creates (spatial: see `shape`). */
@Entity('typed_mysql')
@Sharded()
export class MysqlTyped {
  @PrimaryColumn('bigint') @ShardKey() id!: string;

  @Column({ type: 'tinyint', nullable: true }) tiny!: number | null;
  @Column({ type: 'tinyint', unsigned: true, nullable: true }) tinyUnsigned!: number | null;
  @Column({ type: 'smallint', nullable: true }) small!: number | null;
  @Column({ type: 'mediumint', nullable: true }) medium!: number | null;
  @Column({ type: 'int', nullable: true }) int!: number | null;
  @Column({ type: 'int', unsigned: true, nullable: true }) intUnsigned!: number | null;
  @Column({ type: 'bigint', nullable: true }) big!: string | null;
  @Column({ type: 'bigint', unsigned: true, nullable: true }) bigUnsigned!: string | null;
  @Column({ type: 'boolean', nullable: true }) bool!: boolean | null;
  @Column({ type: 'decimal', precision: 12, scale: 3, nullable: true }) dec!: string | null;
  @Column({ type: 'float', nullable: true }) float!: number | null;
  @Column({ type: 'double', nullable: true }) double!: number | null;
  // TypeORM refuses a length on BIT; a precision becomes BIT(10).
  @Column({ type: 'bit', precision: 10, nullable: true }) bit!: Buffer | number | null;
  @Column({ type: 'year', nullable: true }) year!: number | null;
  @Column({ type: 'date', nullable: true }) date!: string | null;
  @Column({ type: 'datetime', nullable: true }) datetime!: Date | null;
  @Column({ type: 'datetime', precision: 6, nullable: true }) datetime6!: Date | null;
  @Column({ type: 'timestamp', precision: 3, nullable: true }) timestamp3!: Date | null;
  @Column({ type: 'time', nullable: true }) time!: string | null;
  @Column({ type: 'time', precision: 6, nullable: true }) time6!: string | null;
  @Column({ type: 'char', length: 5, nullable: true }) char!: string | null;
  @Column({ type: 'varchar', length: 30, nullable: true }) varchar!: string | null;
  @Column({ type: 'varchar', length: 30, collation: 'utf8mb4_bin', nullable: true }) varcharBin!: string | null;
  @Column({ type: 'varchar', length: 30, collation: 'utf8mb4_unicode_ci', nullable: true }) varcharUnicode!: string | null;
  @Column({ type: 'varchar', length: 30, collation: 'utf8mb4_nopad_bin', nullable: true }) varcharNopad!: string | null;
  @Column({ type: 'nvarchar', length: 30, nullable: true }) nvarchar!: string | null;
  @Column({ type: 'text', nullable: true }) text!: string | null;
  @Column({ type: 'enum', enum: ENUM_LABELS, nullable: true }) enum!: string | null;
  @Column({ type: 'simple-enum', enum: ENUM_LABELS, nullable: true }) simpleEnum!: string | null;
  @Column({ type: 'set', enum: SET_MEMBERS, nullable: true }) set!: string[] | null;
  @Column({ type: 'binary', length: 3, nullable: true }) binary!: Buffer | null;
  @Column({ type: 'varbinary', length: 10, nullable: true }) varbinary!: Buffer | null;
  @Column({ type: 'blob', nullable: true }) blob!: Buffer | null;
  @Column({ type: 'json', nullable: true }) json!: unknown;
  @Column({ type: 'simple-array', nullable: true }) simpleArray!: string[] | null;
  @Column({ type: 'simple-json', nullable: true }) simpleJson!: unknown;
  @Column({ type: 'uuid', nullable: true }) uuid!: string | null;
  @Column({ type: 'inet4', nullable: true }) inet4!: string | null;
  @Column({ type: 'inet6', nullable: true }) inet6!: string | null;
  @Column({ type: 'bigint', asExpression: '`int` * 2', generatedType: 'VIRTUAL', nullable: true, insert: false, update: false }) generatedInt!: string | null;
  @Column({ type: 'varchar', length: 40, asExpression: "CONCAT(`varchar`, '!')", generatedType: 'STORED', nullable: true, insert: false, update: false })
  generatedText!: string | null;
  /** Spatial: refused across shards (always NULL here). */
  @Column({ type: 'point', nullable: true }) shape!: string | null;
}

/** Every SQLite column type TypeORM maps, and the three built-in collations. */
@Entity('typed_sqlite')
@Sharded()
export class SqliteTyped {
  @PrimaryColumn('bigint') @ShardKey() id!: string;

  @Column({ type: 'int', nullable: true }) int!: number | null;
  @Column({ type: 'integer', nullable: true }) integer!: number | null;
  @Column({ type: 'bigint', nullable: true }) big!: number | null;
  @Column({ type: 'real', nullable: true }) real!: number | null;
  @Column({ type: 'double', nullable: true }) double!: number | null;
  @Column({ type: 'float', nullable: true }) float!: number | null;
  @Column({ type: 'decimal', precision: 10, scale: 2, nullable: true }) dec!: number | null;
  @Column({ type: 'numeric', nullable: true }) numeric!: number | null;
  @Column({ type: 'boolean', nullable: true }) bool!: boolean | null;
  @Column({ type: 'date', nullable: true }) date!: string | null;
  @Column({ type: 'datetime', nullable: true }) datetime!: Date | null;
  @Column({ type: 'time', nullable: true }) time!: string | null;
  @Column({ type: 'varchar', length: 30, nullable: true }) varchar!: string | null;
  @Column({ type: 'varchar', length: 30, collation: 'NOCASE', nullable: true }) varcharNocase!: string | null;
  @Column({ type: 'varchar', length: 30, collation: 'RTRIM', nullable: true }) varcharRtrim!: string | null;
  @Column({ type: 'nvarchar', nullable: true }) nvarchar!: string | null;
  @Column({ type: 'text', nullable: true }) text!: string | null;
  @Column({ type: 'blob', nullable: true }) blob!: Buffer | null;
  @Column({ type: 'json', nullable: true }) json!: unknown;
  @Column({ type: 'simple-array', nullable: true }) simpleArray!: string[] | null;
  @Column({ type: 'simple-json', nullable: true }) simpleJson!: unknown;
  @Column({ type: 'simple-enum', enum: ENUM_LABELS, nullable: true }) simpleEnum!: string | null;
  @Column({ type: 'uuid', nullable: true }) uuid!: string | null;
  @Column({ type: 'int', asExpression: '"int" * 2', generatedType: 'VIRTUAL', nullable: true, insert: false, update: false }) generatedInt!: number | null;
}

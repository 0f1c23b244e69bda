import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { Column, DataSource, Entity, PrimaryColumn, type ColumnType } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import { aggregateOrderOf, columnOrderOf, mysqlWeightKey, orderOfFacts, UNTYPED_ORDER, type ColumnOrder } from './column-order.js';

/** `order | extreme` in one line: type, collation when not binary, key SQL of column `c` (`W(x)` = the weight key of x). */
function summary(order: ColumnOrder): string {
  if (order.kind === 'refused') return `refused: ${order.reason}`;
  const sql = (text: string | undefined) => {
    if (text === undefined) return '';
    if (text === mysqlWeightKey('c')) return ' W(c)';
    if (text === mysqlWeightKey('MIN(c)')) return ' W(MIN(c))';
    return ` ${text}`;
  };
  const part = (type: string, collation: string, key: string | undefined) => `${type}${collation === 'binary' ? '' : `/${collation}`}${sql(key)}`;
  const { order: o, extreme: e } = order;
  return `${part(o.type, o.collation, o.key?.('c'))} | ${part(e.type, e.collation, e.key?.('MIN', 'c'))}`;
}

const LABELS = ['zeta', 'alpha'];

@Entity('mysql_types')
class MysqlTypes {
  @PrimaryColumn('int') id!: number;
  @Column('tinyint') tinyint!: number;
  @Column('int', { unsigned: true }) intUnsigned!: number;
  @Column('bigint') bigint!: string;
  @Column('boolean') boolean!: boolean;
  @Column('decimal', { precision: 10, scale: 2 }) decimal!: string;
  @Column('numeric') numeric!: string;
  @Column('double precision') doublePrecision!: number;
  @Column('float') float!: number;
  @Column('bit') bit!: Buffer;
  @Column('year') year!: number;
  @Column('date') date!: string;
  @Column('datetime', { precision: 6 }) datetime!: Date;
  @Column('time') time!: string;
  @Column('timestamp') timestamp!: Date;
  @Column('varchar') varchar!: string;
  @Column({ type: 'varchar', collation: 'utf8mb4_bin' }) varcharBin!: string;
  @Column('nvarchar') nvarchar!: string;
  @Column('longtext') longtext!: string;
  @Column('simple-array') simpleArray!: string[];
  @Column('simple-json') simpleJson!: unknown;
  @Column('enum', { enum: LABELS }) enum!: string;
  @Column('simple-enum', { enum: LABELS }) simpleEnum!: string;
  @Column('set', { enum: LABELS }) set!: string[];
  @Column('varbinary', { length: 4 }) varbinary!: Buffer;
  @Column('mediumblob') mediumblob!: Buffer;
  @Column('json') json!: unknown;
  @Column('uuid') uuid!: string;
  @Column('inet4') inet4!: string;
  @Column('inet6') inet6!: string;
  @Column('point') point!: string;
  @Column({ type: 'int', asExpression: 'id * 2' }) generated!: number;
  @Column({ type: String }) stringConstructor!: string;
  @Column({ type: Number }) numberConstructor!: number;
  @Column({ type: Date }) dateConstructor!: Date;
  @Column({ type: Buffer as unknown as ColumnType }) bufferConstructor!: Buffer;
}

@Entity('sqlite_types')
class SqliteTypes {
  @PrimaryColumn('int') id!: number;
  @Column('bigint') bigint!: number;
  @Column('datetime') datetime!: Date;
  @Column('boolean') boolean!: boolean;
  @Column('varchar') varchar!: string;
  @Column({ type: 'varchar', collation: 'nocase' }) nocase!: string;
  @Column({ type: 'text', collation: 'RTRIM' }) rtrim!: string;
  @Column({ type: 'varchar', collation: 'my_collation' }) custom!: string;
  @Column('blob') blob!: Buffer;
  @Column('simple-enum', { enum: LABELS }) simpleEnum!: string;
}

/**
 * Column metadata as a connected data source has it, built without a database. `version`
 * stands for what the ShardedDataSource copies from its default shard after connecting.
 */
async function columnsOf(type: 'mariadb' | 'mysql' | 'better-sqlite3', entity: Function, version?: string): Promise<Map<string, ColumnMetadata>> {
  const ds = new DataSource({ type, entities: [entity], database: ':memory:' } as never);
  if (version !== undefined) Object.assign(ds.driver, { version, uuidColumnTypeSuported: type === 'mariadb' });
  await (ds as unknown as { buildMetadatas(): Promise<void> }).buildMetadatas();
  return new Map(ds.getMetadata(entity).columns.map((c) => [c.propertyName, c]));
}

const NUMBER = 'numeric | numeric';
const TEXT = 'mysql-weight W(c) | mysql-weight W(MIN(c))';
const TEMPORAL = 'numeric (c + 0) | numeric MIN((c + 0))';
const BYTES = 'binary | binary';

const MARIADB_EXPECTED: Readonly<Record<string, string>> = {
  tinyint: NUMBER,
  intUnsigned: NUMBER,
  bigint: NUMBER,
  boolean: NUMBER,
  decimal: NUMBER,
  numeric: NUMBER,
  doublePrecision: NUMBER,
  year: NUMBER,
  generated: NUMBER,
  numberConstructor: NUMBER,
  float: 'numeric (c + 0e0) | numeric MIN((c + 0e0))',
  bit: 'numeric | numeric MIN(c + 0)',
  date: TEMPORAL,
  datetime: TEMPORAL,
  time: TEMPORAL,
  dateConstructor: TEMPORAL,
  timestamp: 'numeric UNIX_TIMESTAMP(c) | numeric MIN(UNIX_TIMESTAMP(c))',
  varchar: TEXT,
  varcharBin: TEXT,
  nvarchar: TEXT,
  longtext: TEXT,
  simpleArray: TEXT,
  simpleJson: TEXT,
  stringConstructor: TEXT,
  json: TEXT,
  enum: 'numeric (c + 0) | mysql-weight W(MIN(c))',
  simpleEnum: 'numeric (c + 0) | mysql-weight W(MIN(c))',
  set: 'numeric (c + 0) | mysql-weight W(MIN(c))',
  varbinary: BYTES,
  mediumblob: BYTES,
  bufferConstructor: BYTES,
  uuid: 'mariadb-uuid | mariadb-uuid',
  inet4: 'binary CAST(c AS BINARY(4)) | binary MIN(CAST(c AS BINARY(4)))',
  inet6: 'binary CAST(c AS BINARY(16)) | binary MIN(CAST(c AS BINARY(16)))',
  point: 'refused: ORDER BY, GROUP BY, DISTINCT or MIN/MAX over several shards of column "point": spatial values have no order the merge can reproduce, so the shards\' results cannot be merged exactly; order by a scalar expression of it instead, or keep the query on one shard',
};

describe('columnOrderOf', () => {
  it('MariaDB 10.11: every column type of the entity', async () => {
    const columns = await columnsOf('mariadb', MysqlTypes, '10.11.19');
    const actual = Object.fromEntries([...columns].filter(([name]) => name !== 'id').map(([name, c]) => [name, summary(columnOrderOf(c, 'mysql'))]));
    expect(actual).toEqual(MARIADB_EXPECTED);
  });

  it('MySQL: JSON is refused (its own comparison rules), UUID is VARCHAR(36) text', async () => {
    const columns = await columnsOf('mysql', MysqlTypes, '8.0.36');
    expect(summary(columnOrderOf(columns.get('json')!, 'mysql'))).toMatch(/^refused: .*column "json": MySQL orders JSON documents .*\(JSON_VALUE/);
    expect(summary(columnOrderOf(columns.get('uuid')!, 'mysql'))).toBe(TEXT);
  });

  it('MariaDB before 10.11.5 orders every UUID group-swapped', async () => {
    const columns = await columnsOf('mariadb', MysqlTypes, '10.11.4');
    expect(summary(columnOrderOf(columns.get('uuid')!, 'mysql'))).toBe('mariadb-uuid-swap-all | mariadb-uuid-swap-all');
    const version = (v: string) => summary(orderOfFacts({ engine: 'mariadb', type: 'uuid', name: 'u', version: v }));
    expect([version('10.7.1'), version('10.10.5'), version('10.10.6'), version('11.0.2'), version('11.1.2'), version('11.4.5')]).toEqual([
      'mariadb-uuid-swap-all | mariadb-uuid-swap-all',
      'mariadb-uuid-swap-all | mariadb-uuid-swap-all',
      'mariadb-uuid | mariadb-uuid',
      'mariadb-uuid-swap-all | mariadb-uuid-swap-all',
      'mariadb-uuid | mariadb-uuid',
      'mariadb-uuid | mariadb-uuid',
    ]);
  });

  it('every type TypeORM\'s MySQL driver supports has an order or a refusal, none unknown', async () => {
    const ds = new DataSource({ type: 'mariadb', entities: [] } as never);
    for (const type of ds.driver.supportedDataTypes) {
      const order = orderOfFacts({ engine: 'mariadb', type: String(type), name: 'c' });
      expect(summary(order), String(type)).not.toMatch(/has no known order/);
    }
  });

  it('SQLite: storage-class order with the column\'s built-in collation; a custom collation is refused', async () => {
    const columns = await columnsOf('better-sqlite3', SqliteTypes);
    const actual = Object.fromEntries([...columns].map(([name, c]) => [name, summary(columnOrderOf(c, 'sqlite'))]));
    expect(actual).toEqual({
      id: 'auto | auto',
      bigint: 'auto | auto',
      datetime: 'auto | auto',
      boolean: 'auto | auto',
      varchar: 'auto | auto',
      nocase: 'auto/nocase | auto/nocase',
      rtrim: 'auto/rtrim | auto/rtrim',
      custom: expect.stringMatching(/^refused: .*column "custom": its collation "my_collation" is not one of SQLite's built-in/),
      blob: 'auto | auto',
      simpleEnum: 'auto | auto',
    });
  });

  it('columns without a driver (plain stubs) are read by their TypeORM type names', () => {
    const stub = (type: unknown) => ({ type, propertyName: 'c', databaseName: 'c' }) as unknown as ColumnMetadata;
    expect(summary(columnOrderOf(stub(Number), 'mysql'))).toBe(NUMBER);
    expect(summary(columnOrderOf(stub(Date), 'mysql'))).toBe(TEMPORAL);
    expect(summary(columnOrderOf(stub('uuid'), 'mysql'))).toBe(TEXT);
    expect(summary(columnOrderOf(stub('something-else'), 'mysql'))).toMatch(/its type "something-else" has no known order/);
  });
});

describe('aggregateOrderOf', () => {
  const text = orderOfFacts({ engine: 'mariadb', type: 'varchar', name: 'c' });
  const sqliteText = orderOfFacts({ engine: 'sqlite', type: 'varchar', collation: 'NOCASE', name: 'c' });

  it('COUNT, SUM and AVG results are numbers whatever their argument (DECIMAL sums are strings)', () => {
    for (const fn of ['COUNT', 'SUM', 'AVG']) expect(summary(aggregateOrderOf(fn, text, 'c', 'mysql'))).toBe(NUMBER);
  });

  it('MySQL MIN/MAX results order by the key of the result; SQLite orders them as BINARY', () => {
    expect(summary(aggregateOrderOf('MIN', text, 'c', 'mysql'))).toBe('mysql-weight W(MIN(c)) | mysql-weight W(MIN(c))');
    expect(summary(aggregateOrderOf('MIN', sqliteText, 'c', 'sqlite'))).toBe('auto | auto/nocase');
    expect(summary(aggregateOrderOf('GROUP_CONCAT', text, 'c', 'mysql'))).toBe(summary(UNTYPED_ORDER));
    expect(aggregateOrderOf('MAX', orderOfFacts({ engine: 'mariadb', type: 'point', name: 'p' }), 'p', 'mysql').kind).toBe('refused');
  });
});

describe('mysqlWeightKey', () => {
  it('is the pad weight (empty for NO PAD), its length, and the weights without trailing pads', () => {
    const pad = "IF(LEFT(`t`.`c`, 0) = ' ', WEIGHT_STRING(LEFT(`t`.`c`, 0) AS CHAR(1)), '')";
    expect(mysqlWeightKey('`t`.`c`')).toBe(`CONCAT(CHAR(LENGTH(${pad})), ${pad}, TRIM(TRAILING ${pad} FROM WEIGHT_STRING(\`t\`.\`c\`)))`);
  });
});

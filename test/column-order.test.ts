/**
 * Every column type TypeORM maps on MariaDB and on SQLite, ordered, grouped, made DISTINCT
 * and MIN/MAXed across 4 shards, against one plain DataSource with the same rows (the
 * differential oracle). Values include ties, NULLs and the edge cases each type's order
 * has (ENUM declaration order, PAD SPACE text, DATETIME(6) microseconds, FLOAT printing, …).
 */
// A time zone with DST, so that mysql2's local-time Dates meet a skipped hour (set before any Date is made).
process.env.TZ = 'America/New_York';

import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSource, ObjectLiteral } from 'typeorm';
import { UnsupportedShardingError } from '../packages/typeorm-sharding/src/index.js';
import { openFixture, type Backend, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';
import { MysqlTyped, SqliteTyped } from './support/typed-entities.js';

const ROWS = 96;
const PAGE = { skip: 7, take: 40 };

/** Values of one column: rows take them in turn (with a column-specific stride), so there are ties and NULLs. */
type Pool = readonly unknown[];

/** Text whose order differs between collations: case, accents, trailing spaces/tabs/newlines, `_`, empty. */
const TEXT: Pool = ['apple', 'Apple', 'APPLE', 'a', 'a ', 'a\t', 'a\nb', 'b', '', ' ', 'é', 'e', 'E', 'Z', '_', 'zz', null];

const MYSQL_POOLS: Readonly<Record<string, Pool>> = {
  tiny: [-128, -1, 0, 1, 127, null],
  tinyUnsigned: [0, 255, 7, null],
  small: [-32768, 32767, 5, null],
  medium: [-8388608, 8388607, 0, null],
  int: [-2147483648, 2147483647, 0, 42, -42, null],
  intUnsigned: [0, 4294967295, 7, 42, null],
  big: ['-9223372036854775808', '9223372036854775807', '9007199254740993', '9007199254740992', '-1', null],
  bigUnsigned: ['18446744073709551615', '0', '9007199254740993', '9007199254740992', null],
  bool: [true, false, null],
  dec: ['-12.500', '3.125', '3.100', '999999999.999', '0.000', null],
  // FLOAT prints 6 digits: the first two read back as 1.
  float: [1.0000001, 1.0000002, 1, -3.5, 3.4e38, null],
  double: [0.1 + 0.2, 0.3, -1e308, 1e308, 5e-324, null],
  bit: [0, 1, 2, 513, 1023, null],
  year: [1901, 2155, 2024, 2000, null],
  date: ['2024-03-10', '1000-01-01', '9999-12-31', '2024-03-09', null],
  // 03:00 and 03:30 EDT; the skipped 02:30 is written by SQL below (a Date cannot hold it).
  datetime: [new Date(2024, 2, 10, 3, 0), new Date(2024, 2, 10, 3, 30), new Date(2024, 0, 1), new Date(2024, 0, 1, 0, 0, 1), null],
  datetime6: [null], // microseconds: written by SQL below
  timestamp3: [new Date(Date.UTC(2024, 10, 3, 5, 30, 0, 1)), new Date(Date.UTC(2024, 10, 3, 6, 15)), new Date(Date.UTC(1971, 0, 1, 0, 0, 1)), null],
  time: ['-01:00:00', '838:59:59', '00:00:00', '12:00:00', '-838:59:59', null],
  time6: ['12:00:00.000001', '12:00:00.000002', '-00:00:00.5', '12:00:00', null],
  char: ['a', 'A', 'b', 'é', 'E', '', null],
  varchar: TEXT,
  varcharBin: TEXT,
  varcharUnicode: TEXT,
  varcharNopad: TEXT,
  nvarchar: TEXT,
  text: TEXT,
  enum: ['zeta', 'alpha', 'Mid', 'beta', null],
  simpleEnum: ['beta', 'zeta', 'Mid', 'alpha', null],
  set: [['x'], ['a'], ['M'], ['x', 'a'], [], ['a', 'M'], ['x', 'M'], null],
  binary: [Buffer.from('a'), Buffer.from('a '), Buffer.from([0]), Buffer.from('ab'), Buffer.from([0xff, 0, 1]), null],
  varbinary: [Buffer.from('a'), Buffer.from('a\0'), Buffer.from('a '), Buffer.from(''), Buffer.from([0xff]), Buffer.from('B'), null],
  blob: [Buffer.from('a'), Buffer.from('a\0'), Buffer.from('a '), Buffer.from(''), Buffer.from([0xff]), null],
  json: [{ a: 1 }, [1, 2], 'x', 10, { b: [true, null] }, null],
  simpleArray: [['b', 'a'], ['a'], ['A'], ['a', 'b'], null],
  simpleJson: [{ a: 1 }, { a: 'A' }, [2], 'z', null],
  uuid: [
    '6ccd780c-baba-1026-9564-5b8c656024db',
    '21111111-2222-4333-8444-055555555555',
    'ffffffff-0000-1000-8000-000000000000',
    'aaaaaaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee',
    '00000000-0000-1000-8000-ffffffffffff',
    null,
  ],
  inet4: ['10.0.0.2', '10.0.0.10', '9.255.255.255', '192.168.1.1', null],
  inet6: ['::ffff:1.2.3.4', '2001:db8::a', '2001:db8::9', '::1', null],
};

const SQLITE_POOLS: Readonly<Record<string, Pool>> = {
  int: [-5, 0, 7, 2147483647, null],
  integer: [-2147483648, 3, 3, null],
  big: [-(2 ** 53), 0, 12345678901, null],
  real: [0.1 + 0.2, 0.3, -1.5, null],
  double: [1e308, -1e-308, 2, null],
  float: [1.5, -0, 2.25, null],
  dec: ['12.5', '3.10', '-1', '3.1', null],
  numeric: ['10', '9', '2.5', null],
  bool: [true, false, null],
  date: ['2024-03-10', '1000-01-01', '2024-03-09', null],
  datetime: [new Date(2024, 2, 10, 3, 0), new Date(2024, 2, 10, 3, 30), new Date(2024, 0, 1), null],
  time: ['12:00:00', '01:00:00', '23:59:59', null],
  varchar: TEXT,
  varcharNocase: TEXT,
  varcharRtrim: TEXT,
  nvarchar: TEXT,
  text: TEXT,
  blob: [Buffer.from('a'), Buffer.from('a\0'), Buffer.from('a '), Buffer.from(''), Buffer.from([0xff]), null],
  json: [{ a: 1 }, [1, 2], 'x', 10, null],
  simpleArray: [['b', 'a'], ['a'], ['A'], null],
  simpleJson: [{ a: 1 }, { a: 'A' }, [2], null],
  simpleEnum: ['beta', 'zeta', 'Mid', 'alpha', null],
  uuid: ['6ccd780c-baba-1026-9564-5b8c656024db', '21111111-2222-4333-8444-055555555555', 'FFFFFFFF-0000-1000-8000-000000000000', null],
};

/** Columns whose values equal under the collation may differ in case/accents/trailing spaces: which member a group shows is the database's choice. */
const MYSQL_CI = new Set(['char', 'varchar', 'varcharUnicode', 'nvarchar', 'text', 'simpleArray', 'generatedText']);
const MYSQL_PAD_BIN = new Set(['varcharBin']);
const SQLITE_NOCASE = new Set(['varcharNocase']);
const SQLITE_RTRIM = new Set(['varcharRtrim']);

/** Generated columns: read, never written. */
const GENERATED = ['generatedInt', 'generatedText'];

/** Primes above every pool size: strides coprime with each pool, so every value occurs. */
const STRIDES = Array.from({ length: 400 }, (_, n) => n).filter((n) => n > 17 && Array.from({ length: n - 2 }, (_, k) => k + 2).every((d) => n % d !== 0));

function rowsOf(pools: Readonly<Record<string, Pool>>): ObjectLiteral[] {
  return Array.from({ length: ROWS }, (_, i) => {
    const row: ObjectLiteral = { id: String(i + 1) };
    Object.entries(pools).forEach(([column, pool], c) => {
      // A different stride per column, so that columns do not move in lockstep.
      row[column] = pool[(i * STRIDES[c]! + c) % pool.length];
    });
    return row;
  });
}

/** SQL run on both sides after the inserts: values a JavaScript value cannot carry. */
const MYSQL_FIXUPS = [
  // The DST gap in New York: 02:30 on 2024-03-10 does not exist locally; mysql2 reads it as 03:30.
  "UPDATE typed_mysql SET datetime = '2024-03-10 02:30:00' WHERE id % 7 = 0",
  // Microseconds within one millisecond: equal as JavaScript Dates, distinct in the database.
  "UPDATE typed_mysql SET datetime6 = CASE id % 4 WHEN 0 THEN '2024-01-01 00:00:00.123400' WHEN 1 THEN '2024-01-01 00:00:00.123900' " +
    "WHEN 2 THEN '2024-01-01 00:00:00.123000' ELSE NULL END",
];

/** Comparable form of a raw or hydrated value. */
function plainValue(value: unknown): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
  if (Buffer.isBuffer(value)) return `0x${value.toString('hex')}`;
  if (typeof value === 'bigint') return String(value);
  if (typeof value === 'number' && Object.is(value, -0)) return 0;
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return value;
}

/** The member of an equality class a comparison should see, when the database may show any member. */
function representativeOf(backend: Backend, column: string): (value: unknown) => unknown {
  const fold = (f: (s: string) => string) => (v: unknown) =>
    typeof v === 'string' ? f(v) : Array.isArray(v) ? plainValue(v.map((x) => (typeof x === 'string' ? f(x) : x))) : plainValue(v);
  if (backend === 'mariadb' && MYSQL_CI.has(column))
    return fold((s) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/ +$/, ''));
  if ((backend === 'mariadb' && MYSQL_PAD_BIN.has(column)) || (backend === 'sqlite' && SQLITE_RTRIM.has(column)))
    return fold((s) => s.replace(/ +$/, ''));
  if (backend === 'sqlite' && SQLITE_NOCASE.has(column)) return fold((s) => s.replace(/[A-Z]/g, (c) => c.toLowerCase()));
  return plainValue;
}

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];

describe.each(backends)('every column type orders, groups and MIN/MAXes like one database (%s)', (backend) => {
  const entity = backend === 'mariadb' ? MysqlTyped : SqliteTyped;
  const pools = backend === 'mariadb' ? MYSQL_POOLS : SQLITE_POOLS;
  const columns = [...Object.keys(pools), ...(backend === 'mariadb' ? GENERATED : ['generatedInt'])];
  /** A column with few values to group by. */
  const GROUP = backend === 'mariadb' ? 'tiny' : 'int';
  let fx: Fixture;

  beforeAll(async () => {
    fx = await openFixture(backend, [entity], 4);
    for (const ds of [fx.sharded, fx.plain]) {
      // Fresh objects per source: insert() writes re-selected generated values back into them.
      await ds.getRepository(entity).insert(rowsOf(pools));
      if (backend === 'mariadb') for (const sql of MYSQL_FIXUPS) await ds.query(sql);
    }
    // The rows really are spread: every shard holds some.
    for (const name of fx.sharded.shardNames) {
      const [{ n }] = await fx.sharded.getShardDataSource(name).query('SELECT COUNT(*) AS n FROM typed_' + (backend === 'mariadb' ? 'mysql' : 'sqlite'));
      expect(Number(n)).toBeGreaterThan(0);
    }
  });
  afterAll(async () => fx?.close());

  const both = async <T>(run: (ds: DataSource) => Promise<T>): Promise<[T, T]> => [await run(fx.sharded), await run(fx.plain)];

  describe.each(columns)('%s', (column) => {
    const same = representativeOf(backend, column);

    it.each(['ASC', 'DESC'] as const)('find({ order: { col: %s, id }, skip, take }) returns the same rows in the same order', async (direction) => {
      const [a, b] = await both((ds) => ds.getRepository(entity).find({ select: { id: true, [column]: true }, order: { [column]: direction, id: 'ASC' }, ...PAGE }));
      expect(a.map((r) => String(r.id))).toEqual(b.map((r) => String(r.id)));
      // Without a tiebreaker the rows of a tie may come in any order, but the values may not.
      const [c, d] = await both((ds) => ds.getRepository<ObjectLiteral>(entity).find({ order: { [column]: direction }, take: PAGE.take }));
      expect(c.map((r) => same(r[column]))).toEqual(d.map((r) => same(r[column])));
    });

    it.each(['ASC', 'DESC'] as const)('GROUP BY col ORDER BY col %s (getRawMany)', async (direction) => {
      const [a, b] = await both((ds) =>
        ds.getRepository(entity).createQueryBuilder('t').select(`t.${column}`, 'v').addSelect('COUNT(*)', 'n').groupBy(`t.${column}`).orderBy(`t.${column}`, direction).getRawMany(),
      );
      const shape = (rows: ObjectLiteral[]) => rows.map((r) => [same(r.v), Number(r.n)]);
      expect(shape(a)).toEqual(shape(b));
    });

    // SQLite orders MIN/MAX results as BINARY text, but which of several NOCASE/RTRIM-equal values
    // MIN returns is the database's choice: under those collations the order is not defined.
    const orderedByResult = !(backend === 'sqlite' && (SQLITE_NOCASE.has(column) || SQLITE_RTRIM.has(column)));
    it.runIf(orderedByResult).each(['MIN', 'MAX'] as const)('groups ORDER BY %s(col) (the aggregate\'s alias)', async (fn) => {
      const [a, b] = await both((ds) =>
        ds.getRepository(entity).createQueryBuilder('t').select(`t.${GROUP}`, 'g').addSelect(`${fn}(t.${column})`, 'm').groupBy(`t.${GROUP}`).orderBy('m', 'DESC').addOrderBy('g', 'ASC').getRawMany(),
      );
      const shape = (rows: ObjectLiteral[]) => rows.map((r) => [r.g, same(r.m)]);
      expect(shape(a)).toEqual(shape(b));
    });

    it('DISTINCT col ORDER BY col, and MIN/MAX(col)', async () => {
      const [a, b] = await both((ds) => ds.getRepository(entity).createQueryBuilder('t').select(`t.${column}`, 'v').distinct(true).orderBy(`t.${column}`, 'DESC').getRawMany());
      expect(a.map((r) => same(r.v))).toEqual(b.map((r) => same(r.v)));
      const [c, d] = await both((ds) => ds.getRepository(entity).createQueryBuilder('t').select(`MIN(t.${column})`, 'lo').addSelect(`MAX(t.${column})`, 'hi').getRawOne());
      expect([same(c?.lo), same(c?.hi)]).toEqual([same(d?.lo), same(d?.hi)]);
    });

    // A compound SELECT compares and orders the column as the database does (server keys on MySQL).
    const refusedInUnion = backend === 'mariadb' && ['uuid', 'inet4', 'inet6'].includes(column);
    it(refusedInUnion ? 'UNION of the column is refused (no order the merge can reproduce)' : 'UNION / UNION ALL of the column: duplicates and order as one database', async () => {
      const q = (name: string) => (backend === 'mariadb' ? `\`${name}\`` : `"${name}"`);
      const [t, c] = [q(backend === 'mariadb' ? 'typed_mysql' : 'typed_sqlite'), q(column)];
      const union = `SELECT ${c} AS v FROM ${t} WHERE id <= 60 UNION SELECT ${c} FROM ${t} WHERE id > 30 ORDER BY v DESC`;
      if (refusedInUnion) return void (await expect(fx.sharded.query(union)).rejects.toThrow(/cannot be compared across shards/));
      const [a, b] = await both((ds) => ds.query(union) as Promise<ObjectLiteral[]>);
      expect(a.map((r) => same(r.v))).toEqual(b.map((r) => same(r.v)));
      const all = `SELECT ${c} AS v, id FROM ${t} WHERE id <= 60 UNION ALL SELECT ${c}, id FROM ${t} WHERE id > 30 ORDER BY 1, 2 DESC LIMIT 50 OFFSET 5`;
      const [e, f] = await both((ds) => ds.query(all) as Promise<ObjectLiteral[]>);
      expect(e.map((r) => [plainValue(r.v), String(r.id)])).toEqual(f.map((r) => [plainValue(r.v), String(r.id)]));
    });
  });

  it('ORDER BY SUM / AVG / COUNT aliases compares numbers, not their text (mysql2 returns DECIMAL as strings)', async () => {
    // Not REAL on SQLite: partial float sums added in another order differ in the last bits.
    const number = backend === 'mariadb' ? 'dec' : 'integer';
    const [a, b] = await both((ds) =>
      ds.getRepository(entity).createQueryBuilder('t').select(`t.${GROUP}`, 'g').addSelect(`SUM(t.${number})`, 's').addSelect(`AVG(t.${number})`, 'a').addSelect('COUNT(*)', 'n')
        .groupBy(`t.${GROUP}`).orderBy('s', 'DESC').addOrderBy('g', 'ASC').getRawMany(),
    );
    expect(a).toEqual(b);
    for (const by of ['a', 'n']) {
      const [c, d] = await both((ds) =>
        ds.getRepository(entity).createQueryBuilder('t').select(`t.${GROUP}`, 'g').addSelect(`AVG(t.${number})`, 'a').addSelect('COUNT(*)', 'n')
          .groupBy(`t.${GROUP}`).orderBy(by, 'DESC').addOrderBy('g', 'ASC').getRawMany(),
      );
      expect(c).toEqual(d);
    }
  });

  if (backend === 'mariadb') {
    it('refuses to merge the order of a spatial column, and passes it through on one shard', async () => {
      const repo = fx.sharded.getRepository(MysqlTyped);
      await expect(repo.find({ order: { shape: 'ASC' }, take: 3 })).rejects.toBeInstanceOf(UnsupportedShardingError);
      await expect(repo.find({ order: { shape: 'ASC' }, take: 3 })).rejects.toThrow(/column "shape": spatial values have no order/);
      await expect(repo.createQueryBuilder('t').select('t.shape', 'v').groupBy('t.shape').getRawMany()).rejects.toBeInstanceOf(UnsupportedShardingError);
      expect(await repo.find({ where: { id: '5' }, order: { shape: 'ASC' } })).toHaveLength(1);
    });
  }
});

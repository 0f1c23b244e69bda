import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Column, Entity, In, Index, JoinColumn, ManyToOne, PrimaryColumn, Unique, type DataSource } from 'typeorm';
import { Sharded, ShardedDataSource, ShardingConfigError, ShardKey, UnreadableStatementError } from '../packages/typeorm-sharding/src/index.js';
import { openFixture, type Fixture } from './support/backends.js';
import { MARIADB, mariadbAvailable } from './support/mariadb.js';

// `@Sharded({ partitions })` on real MariaDB: synchronize partitions the table of every shard
// database by KEY on the shard key (and leaves it alone when it already is), reads give what
// one plain table gives, a page over all shards is one statement per server, and what MySQL
// cannot partition is refused at initialize() with a typed error.

@Entity('kp_posts')
@Sharded({ partitions: 4 })
@Index('IDX_kp_posts_created_id', ['createdAt', 'id'])
class Post {
  @PrimaryColumn('bigint') @ShardKey() id!: string;
  @Column('int') tenant!: number;
  @Column('varchar', { length: 30 }) title!: string;
  @Column('datetime') createdAt!: Date;
}

const available = await mariadbAvailable();

/** Partition method, expression and count of a table of one shard database. */
async function partitioningOf(ds: DataSource, table: string): Promise<string> {
  const rows = (await ds.query(
    'SELECT PARTITION_METHOD AS m, PARTITION_EXPRESSION AS e, COUNT(*) AS n FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? GROUP BY m, e',
    [table],
  )) as { m: string | null; e: string | null; n: number | string }[];
  return rows.map((r) => `${r.m ?? 'none'} ${r.e ?? ''} ×${Number(r.n)}`).join('; ');
}

const posts = Array.from({ length: 120 }, (_, i) => ({
  id: String(i + 1),
  tenant: i % 7,
  title: `post ${i + 1}`,
  // Many equal timestamps: the page's order rests on the id tie-break.
  createdAt: new Date(Date.UTC(2026, 0, 1 + (i % 9), 12, 0, 0)),
}));

describe.runIf(available)('@Sharded({ partitions }) on MariaDB', () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await openFixture('mariadb', [Post], 3);
    await fx.sharded.getRepository(Post).save(posts);
    await fx.plain.getRepository(Post).save(posts);
  });
  afterAll(() => fx?.close());

  it('synchronize partitions the table of every shard database by KEY on the shard key', async () => {
    for (const name of fx.sharded.shardNames) {
      expect(await partitioningOf(fx.sharded.getShardDataSource(name), 'kp_posts')).toBe('KEY `id` ×4');
    }
    // The plain database of the oracle is not partitioned.
    expect(await partitioningOf(fx.plain, 'kp_posts')).toBe('none  ×1');
  });

  it('a second synchronize leaves partitioned tables alone, and partitions again when the count changes', async () => {
    const statements: string[] = [];
    fx.sharded.setOptions({ logger: { logQuery: (q: string) => void statements.push(q), logQueryError: () => undefined, logQuerySlow: () => undefined, logSchemaBuild: () => undefined, logMigration: () => undefined, log: () => undefined } } as never);
    await fx.sharded.synchronize();
    expect(statements.filter((s) => /PARTITION BY/i.test(s))).toEqual([]);
    const s0 = fx.sharded.getShardDataSource('s0');
    await s0.query('ALTER TABLE kp_posts PARTITION BY KEY (id) PARTITIONS 2');
    await fx.sharded.synchronize();
    expect(statements.filter((s) => /PARTITION BY/i.test(s))).toHaveLength(1);
    expect(await partitioningOf(s0, 'kp_posts')).toBe('KEY `id` ×4');
    // A column the entity does not have: TypeORM's sync drops it with its own ALTER, which keeps the partitions.
    await s0.query('ALTER TABLE kp_posts ADD COLUMN stray int NULL');
    await fx.sharded.synchronize();
    expect(statements.some((s) => /ALTER TABLE .*kp_posts.* DROP COLUMN .*stray/i.test(s))).toBe(true);
    expect(await partitioningOf(s0, 'kp_posts')).toBe('KEY `id` ×4');
    expect(statements.filter((s) => /PARTITION BY/i.test(s))).toHaveLength(1);
    // Re-partitioning kept every row.
    expect(await fx.sharded.getRepository(Post).count()).toBe(posts.length);
  });

  it('reads give what one plain table gives', async () => {
    const calls: ((ds: DataSource) => Promise<unknown>)[] = [
      (ds) => ds.getRepository(Post).find({ order: { createdAt: 'DESC', id: 'DESC' }, take: 20 }),
      (ds) => ds.getRepository(Post).find({ order: { createdAt: 'DESC', id: 'DESC' }, skip: 37, take: 11 }),
      (ds) => ds.getRepository(Post).find({ where: { id: In(['3', '17', '44', '90', '200']) }, order: { id: 'ASC' } }),
      (ds) => ds.getRepository(Post).findOneBy({ id: '58' }),
      (ds) => ds.getRepository(Post).count({ where: { tenant: 3 } }),
      (ds) => ds.query('SELECT tenant, COUNT(*) AS n, MAX(createdAt) AS latest FROM kp_posts GROUP BY tenant ORDER BY tenant'),
    ];
    for (const call of calls) expect(await call(fx.sharded)).toEqual(await call(fx.plain));
  });

  it('refuses a statement that names partitions, and runs partition DDL on every shard database', async () => {
    await expect(fx.sharded.query('SELECT * FROM kp_posts PARTITION (p0)')).rejects.toBeInstanceOf(UnreadableStatementError);
    expect(fx.sharded.explain('ALTER TABLE kp_posts ANALYZE PARTITION p0', []).map((s) => s.shard)).toEqual(['s0', 's1', 's2']);
  });

  it('a page over every shard is one statement per server, each branch a plain ordered read', async () => {
    const [sql, parameters] = fx.sharded.getRepository(Post).createQueryBuilder('p').orderBy('p.createdAt', 'DESC').addOrderBy('p.id', 'DESC').take(10).getQueryAndParameters();
    const plan = fx.sharded.explain(sql, parameters);
    expect(plan).toHaveLength(1);
    expect(plan[0]!.shards).toEqual(['s0', 's1', 's2']);
    // The server names no partition: it picks and merges them itself.
    expect(plan[0]!.sql).not.toMatch(/PARTITION/i);
  });

  it('writes land in the partition the server picks and are read back by key', async () => {
    const repo = fx.sharded.getRepository(Post);
    await repo.save({ id: '5000', tenant: 1, title: 'late', createdAt: new Date(Date.UTC(2026, 5, 1)) });
    await repo.update({ id: '5000' }, { title: 'later' });
    expect((await repo.findOneBy({ id: '5000' }))?.title).toBe('later');
    const shard = fx.sharded.getShardDataSource(fx.sharded.shardOf(Post, '5000'));
    const where = (await shard.query("SELECT PARTITION_NAME AS p, TABLE_ROWS AS n FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'kp_posts'")) as { p: string }[];
    expect(where.map((r) => r.p).sort()).toEqual(['p0', 'p1', 'p2', 'p3']);
    await repo.delete({ id: '5000' });
    expect(await repo.findOneBy({ id: '5000' })).toBeNull();
  });
});

// --- refused at initialize() ------------------------------------------------------------

@Entity('kp_users')
@Sharded({ partitions: 4 })
@Unique('UQ_kp_users_email', ['email'])
class UserWithEmail {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column('varchar', { length: 60 }) email!: string;
}

@Entity('kp_orders')
@Sharded({ partitions: 4 })
class OrderById {
  @PrimaryColumn('int') id!: number;
  @Column('int') @ShardKey() userId!: number;
}

@Entity('kp_accounts')
@Sharded()
class Account {
  @PrimaryColumn('int') @ShardKey() id!: number;
}

@Entity('kp_entries')
@Sharded({ partitions: 4, colocateWith: () => Account })
class Entry {
  @PrimaryColumn('int') @ShardKey() accountId!: number;
  @PrimaryColumn('int') seq!: number;
  @ManyToOne(() => Account) @JoinColumn({ name: 'accountId' }) account!: Account;
}

@Entity('kp_plain')
@Sharded()
class Plain {
  @PrimaryColumn('int') @ShardKey() id!: number;
}

@Entity('kp_laid_out')
@Sharded({ tables: 2, partitions: 2 })
class LaidOut {
  @PrimaryColumn('int') @ShardKey() id!: number;
}

/** initialize() of an in-memory SQLite or a MariaDB source (never reaching a query) and its error. */
async function initError(entities: Function[], type: 'better-sqlite3' | 'mariadb', sharding: Record<string, unknown> = {}): Promise<unknown> {
  const shards = type === 'better-sqlite3' ? [{ name: 'a', database: ':memory:' }, { name: 'b', database: ':memory:' }] : [{ name: 'a', host: MARIADB.host, port: MARIADB.port, username: MARIADB.user, password: MARIADB.password, database: 'test' }];
  const ds = new ShardedDataSource({ type, entities, shards, sharding } as never);
  return ds.initialize().then(
    async () => {
      await ds.destroy();
      return undefined;
    },
    (e: unknown) => e,
  );
}

describe('partitions refused at initialize()', () => {
  it('on SQLite, which has no partitions', async () => {
    const error = await initError([Plain], 'better-sqlite3', { partitions: { kp_plain: 4 } });
    expect(error).toBeInstanceOf(ShardingConfigError);
    expect(String(error)).toMatch(/need MySQL or MariaDB shards: SQLite has no partitions/);
  });

  it('naming a table of no sharded entity, or not an object, or a count out of range', async () => {
    expect(await initError([Plain], 'better-sqlite3', { partitions: { nowhere: 4 } })).toBeInstanceOf(ShardingConfigError);
    expect(String(await initError([Plain], 'better-sqlite3', { partitions: 4 }))).toMatch(/sharding.partitions must be an object/);
    for (const count of [0, 2.5, 9000, '4']) {
      const error = await initError([Plain], 'better-sqlite3', { partitions: { kp_plain: count } });
      expect(String(error)).toMatch(/must be a whole number from 1 to 8192/);
    }
  });

  describe.runIf(available)('on MariaDB', () => {
    it('a unique key without the shard key (MySQL would refuse the partitioned table)', async () => {
      const error = await initError([UserWithEmail], 'mariadb');
      expect(error).toBeInstanceOf(ShardingConfigError);
      expect(String(error)).toMatch(/UQ_kp_users_email.*\(email\) does not hold the shard key id/);
    });

    it('a primary key without the shard key', async () => {
      expect(String(await initError([OrderById], 'mariadb'))).toMatch(/primary key \(id\) does not hold the shard key userId/);
    });

    it('a foreign key from the table', async () => {
      const error = await initError([Account, Entry], 'mariadb');
      expect(error).toBeInstanceOf(ShardingConfigError);
      expect(String(error)).toMatch(/InnoDB has no foreign keys on partitioned tables, and Entry.account declares one.*createForeignKeyConstraints: false/);
    });

    it('a foreign key to the table', async () => {
      const error = await initError([Account, Entry], 'mariadb', { partitions: { kp_accounts: 2, kp_entries: 2 } });
      expect(String(error)).toMatch(/Entity Account: partitions: InnoDB has no foreign keys on partitioned tables, and the relation of Entry to it declares one/);
    });

    it('with a table-per-shard layout', async () => {
      expect(String(await initError([LaidOut], 'mariadb'))).toMatch(/partitions and a table-per-shard layout \(tables\) do not go together/);
    });
  });
});

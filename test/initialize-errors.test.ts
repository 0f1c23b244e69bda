import 'reflect-metadata';
import mysql from 'mysql2/promise';
import { describe, expect, it } from 'vitest';
import { Column, DataSource, Entity, PrimaryColumn, PrimaryGeneratedColumn, Tree, TreeChildren, TreeParent } from 'typeorm';
import { Broadcast, ShardConnectionError, ShardedDataSource, Sharded, ShardingConfigError, ShardKey } from '../packages/typeorm-sharding/src/index.js';
import { createDatabases, dropDatabases, MARIADB, mariadbAvailable } from './support/mariadb.js';

@Entity('no_key')
@Sharded()
class NoKey {
  @PrimaryColumn('int') id!: number;
}

@Entity('two_keys')
@Sharded()
class TwoKeys {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column('int') @ShardKey() other!: number;
}

@Entity('key_not_column')
@Sharded()
class KeyNotColumn {
  @PrimaryColumn('int') id!: number;
  @ShardKey() notAColumn!: number;
}

@Entity('both')
@Sharded()
@Broadcast()
class Both {
  @PrimaryColumn('int') @ShardKey() id!: number;
}

@Entity('auto_inc')
@Sharded()
class AutoIncrement {
  @PrimaryGeneratedColumn('increment') @ShardKey() id!: number;
}

@Entity('key_without_sharded')
class KeyWithoutSharded {
  @PrimaryColumn('int') @ShardKey() id!: number;
}

@Entity('good')
@Sharded()
class Good {
  @PrimaryColumn('int') @ShardKey() id!: number;
}

@Entity('sharded_category')
@Tree('closure-table')
@Sharded()
class ShardedCategory {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column('varchar', { length: 20 }) name!: string;
  @TreeChildren() children!: ShardedCategory[];
  @TreeParent() parent!: ShardedCategory | null;
}

/** The fix the refusal names: the same tree without @Sharded(), on the default shard. */
@Entity('category')
@Tree('closure-table')
class Category {
  @PrimaryColumn('int') id!: number;
  @Column('varchar', { length: 20 }) name!: string;
  @TreeChildren() children!: Category[];
  @TreeParent() parent!: Category | null;
}

const sqlite = (entities: Function[], shards = [{ name: 's0', database: ':memory:' }, { name: 's1', database: ':memory:' }]) =>
  new ShardedDataSource({ type: 'better-sqlite3', entities, shards });

describe('initialize() refuses bad decorators, naming the entity', () => {
  const cases: [string, Function, RegExp][] = [
    ['@Sharded without a shard key', NoKey, /NoKey is @Sharded\(\) but has no @ShardKey\(\)/],
    ['two shard keys', TwoKeys, /TwoKeys has 2 shard keys/],
    ['a shard key that is not a column', KeyNotColumn, /KeyNotColumn: @ShardKey\(\) property "notAColumn" is not a column/],
    ['both @Sharded and @Broadcast', Both, /Both is both @Sharded\(\) and @Broadcast\(\)/],
    ['an auto-increment primary key', AutoIncrement, /AutoIncrement: auto-increment primary key "id"/],
    ['@ShardKey without @Sharded', KeyWithoutSharded, /KeyWithoutSharded has @ShardKey\(\) on "id" but no @Sharded\(\)/],
  ];
  for (const [title, entity, message] of cases) {
    it(title, async () => {
      const ds = sqlite([entity]);
      const error = await ds.initialize().then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(ShardingConfigError);
      expect(String((error as Error).message)).toMatch(message);
      expect(ds.isInitialized).toBe(false);
    });
  }

  it('a sharded @Tree entity, naming the fix that works (which then works)', async () => {
    const ds = sqlite([ShardedCategory]);
    const error = await ds.initialize().then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ShardingConfigError);
    expect(String((error as Error).message)).toMatch(/ShardedCategory: a @Tree\("closure-table"\) entity cannot be @Sharded\(\).*Remove @Sharded\(\)/);
    expect(String((error as Error).message)).not.toMatch(/colocateWith/);

    const fixed = await new ShardedDataSource({ type: 'better-sqlite3', entities: [Category, Good], shards: [{ name: 's0', database: ':memory:' }, { name: 's1', database: ':memory:' }], synchronize: true }).initialize();
    const repo = fixed.getTreeRepository(Category);
    const root = await repo.save(Object.assign(new Category(), { id: 1, name: 'root', parent: null }));
    await repo.save(Object.assign(new Category(), { id: 2, name: 'child', parent: root }));
    const trees = await repo.findTrees();
    expect(trees.map((t) => [t.name, t.children.map((c) => c.name)])).toEqual([['root', ['child']]]);
    await fixed.destroy();
  });

  it('accepts a correct entity', async () => {
    const ds = await sqlite([Good]).initialize();
    expect(ds.shardNames).toEqual(['s0', 's1']);
    await ds.destroy();
  });
});

describe('initialize() refuses bad shard options', () => {
  it('no shards', async () => {
    await expect(sqlite([Good], []).initialize()).rejects.toThrow(/at least one entry in `shards`/);
  });
  it('duplicate names', async () => {
    await expect(sqlite([Good], [{ name: 'a', database: ':memory:' }, { name: 'a', database: ':memory:' }]).initialize()).rejects.toThrow(/"a" is used twice/);
  });
  it('a shard without a name', async () => {
    await expect(sqlite([Good], [{ database: ':memory:' } as never]).initialize()).rejects.toBeInstanceOf(ShardingConfigError);
  });
  it('bad sharding options', async () => {
    const ds = new ShardedDataSource({ type: 'better-sqlite3', entities: [Good], shards: [{ name: 's0', database: ':memory:' }], sharding: { maxInValuesPerQuery: 0 } });
    await expect(ds.initialize()).rejects.toThrow(/maxInValuesPerQuery must be a positive integer; got 0/);
  });
});

describe.runIf(await mariadbAvailable())('an unreachable shard on MariaDB', () => {
  it('fails initialize() naming the shard and leaves no connection open', async () => {
    const names = ['tsh_unreach_0', 'tsh_unreach_1'];
    await createDatabases(names);
    try {
      const ds = new ShardedDataSource({
        type: 'mariadb',
        host: MARIADB.host,
        port: MARIADB.port,
        username: MARIADB.user,
        password: '',
        entities: [Good],
        shards: [
          { name: 'ok0', database: names[0] },
          { name: 'broken', port: 1, connectTimeout: 2000 },
          { name: 'ok1', database: names[1] },
        ],
      });
      const error = await ds.initialize().then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(ShardConnectionError);
      expect((error as ShardConnectionError).shard).toBe('broken');
      expect((error as Error).message).toMatch(/Could not connect shard broken/);
      expect(ds.isInitialized).toBe(false);
      // The server drops a closed session asynchronously: poll briefly, a leak would stay.
      const c = await mysql.createConnection(MARIADB);
      let open = -1;
      try {
        for (let i = 0; i < 50 && open !== 0; i++) {
          const [rows] = await c.query("SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB LIKE 'tsh_unreach_%'");
          open = Number((rows as { n: number }[])[0]!.n);
          if (open !== 0) await new Promise((r) => setTimeout(r, 100));
        }
      } finally {
        await c.end();
      }
      expect(open).toBe(0);
    } finally {
      await dropDatabases(names);
    }
  });

  // Shards connect through their server's pool without a query of their own: a missing
  // database is found by one look at the server's schemas, before any statement needs it.
  it('fails initialize() naming the shards whose database does not exist', async () => {
    const names = ['tsh_nodb_0'];
    await createDatabases(names);
    try {
      const shards = [{ name: 'ok', database: names[0] }, { name: 'gone', database: 'tsh_nodb_missing' }];
      const ds = new ShardedDataSource({ type: 'mariadb', host: MARIADB.host, port: MARIADB.port, username: MARIADB.user, password: '', entities: [Good], shards });
      const error = await ds.initialize().then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(ShardConnectionError);
      expect((error as ShardConnectionError).shard).toBe('gone');
      expect((error as Error).message).toMatch(/Could not connect shard gone: unknown database 'tsh_nodb_missing'/);
      expect(ds.isInitialized).toBe(false);
    } finally {
      await dropDatabases(names);
    }
  });

  it("gives every shard's driver the version and capabilities TypeORM reads from the server", async () => {
    const names = ['tsh_caps_0', 'tsh_caps_1'];
    await createDatabases(names);
    const options = { type: 'mariadb' as const, host: MARIADB.host, port: MARIADB.port, username: MARIADB.user, password: '', entities: [Good] };
    const ds = await new ShardedDataSource({ ...options, shards: names.map((database, i) => ({ name: `s${i}`, database })) }).initialize();
    const plain = await new DataSource({ ...options, database: names[0] }).initialize();
    try {
      const capabilities = (driver: unknown) => {
        const d = driver as { version: string; cteCapabilities: unknown; uuidColumnTypeSuported: boolean; isReturningSqlSupported(kind: string): boolean };
        return { version: d.version, cte: d.cteCapabilities, uuid: d.uuidColumnTypeSuported, returning: ['insert', 'update', 'delete'].map((k) => d.isReturningSqlSupported(k)) };
      };
      expect(capabilities(plain.driver).version).toMatch(/^\d+\.\d+/);
      for (const name of ds.shardNames) expect(capabilities(ds.getShardDataSource(name).driver)).toEqual(capabilities(plain.driver));
      // And the shard's own connections work, on its own database.
      expect(await ds.getShardDataSource('s1').query('SELECT DATABASE() AS db')).toEqual([{ db: names[1] }]);
    } finally {
      await plain.destroy();
      await ds.destroy();
      await dropDatabases(names);
    }
  });
});

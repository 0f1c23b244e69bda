import 'reflect-metadata';
import { afterEach, describe, expect, it } from 'vitest';
import { Column, Entity, Index, JoinColumn, JoinTable, ManyToMany, ManyToOne, PrimaryColumn, Table, type DataSource, type MigrationInterface, type QueryRunner } from 'typeorm';
import { Sharded, ShardedDataSource, ShardingConfigError, ShardKey, UnsupportedShardingError } from '../packages/typeorm-sharding/src/index.js';
import { openFixture, type Backend, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';
import { openMigrationPair, type MigrationPair } from './support/migration-env.js';

// Table-per-shard layouts against real databases: schema sync and migrations create every
// physical table (with per-table index and foreign-key names), data goes to the table its key
// names, and configuration the layouts cannot serve is refused at initialize().

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];

@Entity('ledger')
@Sharded({ tables: 3 })
@Index(['account'])
class Entry {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column('varchar', { length: 20 }) account!: string;
  @Column('int') amount!: number;
}

@Entity('ledger_notes')
@Sharded({ tables: 3, colocateWith: () => Entry, uniquePerShard: ['id'] })
class Note {
  @PrimaryColumn('int') id!: number;
  @Column('int') @ShardKey() entryId!: number;
  @Column('varchar', { length: 40 }) text!: string;
  @ManyToOne(() => Entry) @JoinColumn({ name: 'entryId' }) entry!: Entry;
}

const ENTITIES = [Entry, Note];
const IDS = Array.from({ length: 30 }, (_, i) => i + 1);
const PHYSICAL = [0, 1, 2].flatMap((i) => [`ledger_${i}`, `ledger_notes_${i}`]).sort();

/** Names of the tables, indexes and foreign keys of one shard database. */
async function schemaOf(ds: DataSource, backend: Backend): Promise<{ tables: string[]; indexes: string[]; foreignKeys: string[] }> {
  if (backend === 'sqlite') {
    const rows = (await ds.query("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")) as { type: string; name: string; sql: string }[];
    const fks = rows.flatMap((r) => [...(r.sql ?? '').matchAll(/CONSTRAINT "(FK_[^"]+)" FOREIGN KEY \("entryId"\) REFERENCES "([^"]+)"/g)].map((m) => `${m[1]}->${m[2]}`));
    return { tables: rows.filter((r) => r.type === 'table').map((r) => r.name).sort(), indexes: rows.filter((r) => r.type === 'index').map((r) => r.name).sort(), foreignKeys: fks.sort() };
  }
  const tables = (await ds.query('SELECT TABLE_NAME AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()')) as { n: string }[];
  const indexes = (await ds.query("SELECT DISTINCT INDEX_NAME AS n FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND INDEX_NAME <> 'PRIMARY' AND INDEX_NAME NOT LIKE 'FK%'")) as { n: string }[];
  const fks = (await ds.query("SELECT CONSTRAINT_NAME AS n, REFERENCED_TABLE_NAME AS t FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE() AND REFERENCED_TABLE_NAME IS NOT NULL")) as { n: string; t: string }[];
  return { tables: tables.map((r) => r.n).sort(), indexes: indexes.map((r) => r.n).sort(), foreignKeys: fks.map((r) => `${r.n}->${r.t}`).sort() };
}

/** Every row of the entity, by the ShardedDataSource, and where each id is stored physically. */
async function placementOf(ds: ShardedDataSource): Promise<Map<number, string>> {
  const where = new Map<number, string>();
  for (const shard of ds.shardNames) {
    for (let t = 0; t < 3; t++) {
      const rows = (await ds.getShardDataSource(shard).query(`SELECT id FROM ledger_${t}`)) as { id: number }[];
      for (const r of rows) where.set(Number(r.id), `${shard}/ledger_${t}`);
    }
  }
  return where;
}

for (const backend of backends) {
  describe(`table-per-shard layouts on ${backend}`, () => {
    let fx: Fixture | undefined;
    let pair: MigrationPair | undefined;
    afterEach(async () => {
      await fx?.close();
      await pair?.close();
      fx = pair = undefined;
    });

    it('schema sync creates every physical table of every shard, with per-table index and foreign-key names; syncing again changes nothing', async () => {
      const statements: string[] = [];
      fx = await openFixture(backend, ENTITIES, 2, {}, { logging: ['schema', 'query'], logger: { logQuery: (q: string) => statements.push(q), logQueryError: () => undefined, logQuerySlow: () => undefined, logSchemaBuild: () => undefined, logMigration: () => undefined, log: () => undefined } });
      for (const shard of fx.sharded.shardNames) {
        const schema = await schemaOf(fx.sharded.getShardDataSource(shard), backend);
        expect(schema.tables.filter((t) => t.startsWith('ledger'))).toEqual(PHYSICAL);
        // One index per physical table, each named with its table's index (SQLite names indexes per database).
        const index = fx.sharded.getMetadata(Entry).indices[0]!.name;
        expect(schema.indexes.filter((n) => n.startsWith('IDX'))).toEqual([0, 1, 2].map((i) => `${index}_${i}`));
        // The foreign key of ledger_notes_i points to ledger_i.
        const fk = fx.sharded.getMetadata(Note).foreignKeys[0]!.name;
        expect(schema.foreignKeys).toEqual([0, 1, 2].map((i) => `${fk}_${i}->ledger_${i}`));
      }
      statements.length = 0;
      await fx.sharded.synchronize();
      expect(statements.filter((s) => /^\s*(CREATE|ALTER|DROP)\b/i.test(s))).toEqual([]);
    });

    it('schema sync recreates one physical table that went missing', async () => {
      fx = await openFixture(backend, ENTITIES, 2);
      const shard = fx.sharded.getShardDataSource('s1');
      await shard.query('DROP TABLE ledger_notes_2');
      await shard.query('DROP TABLE ledger_2');
      await fx.sharded.synchronize();
      expect((await schemaOf(shard, backend)).tables.filter((t) => t.startsWith('ledger'))).toEqual(PHYSICAL);
    });

    it('rows go to the table their key names, and read back as from one database', async () => {
      fx = await openFixture(backend, ENTITIES, 2);
      for (const ds of [fx.plain, fx.sharded]) {
        await ds.getRepository(Entry).insert(IDS.map((id) => ({ id, account: `a${id % 4}`, amount: id * 3 })));
        await ds.getRepository(Note).insert(IDS.filter((id) => id % 2 === 0).map((id) => ({ id: 1000 + id, entryId: id, text: `n${id}` })));
      }
      const where = await placementOf(fx.sharded);
      expect([...where.keys()].sort((a, b) => a - b)).toEqual(IDS);
      for (const id of IDS) expect(where.get(id)).toBe(`${fx.sharded.shardOf(Entry, id)}/${fx.sharded.tableOf(Entry, id)}`);
      // Every table of every shard holds rows: the keys spread over them.
      expect(new Set(where.values()).size).toBe(6);
      const read = (ds: DataSource) =>
        Promise.all([
          ds.getRepository(Entry).find({ order: { amount: 'DESC' }, skip: 4, take: 7 }),
          ds.getRepository(Entry).createQueryBuilder('e').select('e.account', 'account').addSelect('SUM(e.amount)', 'total').groupBy('e.account').orderBy('e.account').getRawMany(),
          ds.getRepository(Note).createQueryBuilder('n').innerJoinAndSelect('n.entry', 'e').where('e.amount > :x', { x: 30 }).orderBy('n.id').getMany(),
          ds.getRepository(Entry).countBy({ account: 'a1' }),
        ]);
      const [a, b] = await Promise.all([read(fx.plain), read(fx.sharded)]);
      expect(JSON.parse(JSON.stringify(b))).toEqual(JSON.parse(JSON.stringify(a)));
      // Updates and deletes reach the one table of their key.
      fx.physical.length = 0;
      await fx.sharded.getRepository(Entry).update({ id: 7 }, { amount: 1 });
      expect(fx.physical.map((e) => [e.shard, /ledger_\d/.exec(e.sql)?.[0]])).toEqual([[fx.sharded.shardOf(Entry, 7), fx.sharded.tableOf(Entry, 7)]]);
      await fx.sharded.getRepository(Entry).delete({ id: 9 });
      expect(await fx.sharded.getRepository(Entry).count()).toBe(IDS.length - 1);
    });

    it('a write reaching two tables of one shard is atomic, as one statement on one database', async () => {
      fx = await openFixture(backend, ENTITIES, 1);
      const ds = fx.sharded;
      // Two keys of the one shard whose rows sit in different tables.
      const a = IDS.find((id) => ds.tableOf(Entry, id) === 'ledger_0')!;
      const b = IDS.find((id) => ds.tableOf(Entry, id) === 'ledger_1')!;
      await ds.getRepository(Entry).insert({ id: b, account: 'x', amount: 1 });
      // ledger_0 gets a's row, ledger_1 a duplicate of b: the whole INSERT fails, and a's row is not left behind.
      await expect(ds.query(`INSERT INTO ledger (id, account, amount) VALUES (${a}, 'y', 2), (${b}, 'z', 3)`)).rejects.toThrow();
      expect((await ds.getRepository(Entry).find()).map((e) => e.id)).toEqual([b]);
    });

    it('a migration creates (and its revert drops) every physical table, its raw SQL and schema-API DDL run table by table', async () => {
      class CreateLedger1700000000001 implements MigrationInterface {
        async up(q: QueryRunner): Promise<void> {
          await q.createTable(
            new Table({
              name: 'ledger',
              columns: [
                { name: 'id', type: 'int', isPrimary: true },
                { name: 'account', type: 'varchar', length: '20' },
                { name: 'amount', type: 'int' },
              ],
              indices: [{ name: 'IDX_ledger_account', columnNames: ['account'] }],
            }),
          );
          await q.query(
            backend === 'sqlite'
              ? 'CREATE TABLE "ledger_notes" ("id" integer PRIMARY KEY NOT NULL, "entryId" integer NOT NULL, "text" varchar(40) NOT NULL, CONSTRAINT "FK_note_entry" FOREIGN KEY ("entryId") REFERENCES "ledger" ("id"))'
              : 'CREATE TABLE `ledger_notes` (`id` int NOT NULL, `entryId` int NOT NULL, `text` varchar(40) NOT NULL, PRIMARY KEY (`id`), CONSTRAINT `FK_note_entry` FOREIGN KEY (`entryId`) REFERENCES `ledger` (`id`)) ENGINE=InnoDB',
          );
        }
        async down(q: QueryRunner): Promise<void> {
          await q.query('DROP TABLE ledger_notes');
          await q.query('DROP TABLE ledger');
        }
      }
      class IndexAmount1700000000002 implements MigrationInterface {
        async up(q: QueryRunner): Promise<void> {
          await q.query('CREATE INDEX IDX_ledger_amount ON ledger (amount)');
        }
        async down(q: QueryRunner): Promise<void> {
          // SQLite names the index alone: it is found on every shard as IDX_ledger_amount_<table>.
          await q.query(backend === 'sqlite' ? 'DROP INDEX IDX_ledger_amount' : 'DROP INDEX IDX_ledger_amount ON ledger');
        }
      }
      pair = await openMigrationPair(backend, ENTITIES, [CreateLedger1700000000001, IndexAmount1700000000002], 2);
      await pair.sharded.runMigrations();
      await pair.plain.runMigrations();
      // An index dropped by its name alone that no table has is the database's own error.
      await expect(pair.sharded.query(backend === 'sqlite' ? 'DROP INDEX IDX_nowhere' : 'DROP INDEX IDX_nowhere ON ledger')).rejects.toThrow(backend === 'sqlite' ? /no such index: IDX_nowhere/ : /check that .*exists/i);
      for (const shard of pair.sharded.shardNames) {
        const schema = await schemaOf(pair.sharded.getShardDataSource(shard), backend);
        expect(schema.tables.filter((t) => t.startsWith('ledger'))).toEqual(PHYSICAL);
        expect(schema.indexes.filter((n) => n.startsWith('IDX'))).toEqual(['IDX_ledger_account_0', 'IDX_ledger_account_1', 'IDX_ledger_account_2', 'IDX_ledger_amount_0', 'IDX_ledger_amount_1', 'IDX_ledger_amount_2']);
        expect(schema.foreignKeys).toEqual([0, 1, 2].map((i) => `FK_note_entry_${i}->ledger_${i}`));
      }
      // The migrations table is the default shard's, as without a layout.
      expect((await pair.sharded.getShardDataSource('s1').query(backend === 'sqlite' ? "SELECT name FROM sqlite_master WHERE name = 'migrations'" : "SHOW TABLES LIKE 'migrations'")).length).toBe(0);
      for (const ds of [pair.plain, pair.sharded]) await ds.getRepository(Entry).insert(IDS.map((id) => ({ id, account: `a${id % 3}`, amount: id })));
      const sums = (ds: DataSource) => ds.getRepository(Entry).createQueryBuilder('e').select('e.account', 'a').addSelect('COUNT(*)', 'n').groupBy('e.account').orderBy('e.account').getRawMany();
      expect(JSON.parse(JSON.stringify(await sums(pair.sharded)))).toEqual(JSON.parse(JSON.stringify(await sums(pair.plain))));
      await pair.sharded.undoLastMigration();
      for (const shard of pair.sharded.shardNames) {
        expect((await schemaOf(pair.sharded.getShardDataSource(shard), backend)).indexes.filter((n) => n.startsWith('IDX'))).toEqual(['IDX_ledger_account_0', 'IDX_ledger_account_1', 'IDX_ledger_account_2']);
      }
      await pair.sharded.undoLastMigration();
      for (const shard of pair.sharded.shardNames) {
        expect((await schemaOf(pair.sharded.getShardDataSource(shard), backend)).tables.filter((t) => t.startsWith('ledger'))).toEqual([]);
      }
    });

    it('a schema-API call that reads a laid-out table by its name is refused, naming the fix', async () => {
      fx = await openFixture(backend, ENTITIES, 2);
      const runner = fx.sharded.createQueryRunner();
      try {
        await expect(runner.getTable('ledger')).rejects.toThrow(UnsupportedShardingError);
        await expect(runner.hasColumn('ledger', 'amount')).rejects.toThrow(/table-per-shard layout.*as SQL/);
      } finally {
        await runner.release();
      }
    });
  });
}

describe('table-per-shard layouts refused at initialize()', () => {
  const open = (entities: Function[], sharding: Record<string, unknown> = {}) =>
    new ShardedDataSource({ type: 'better-sqlite3', entities, synchronize: false, shards: [{ name: 's0', database: ':memory:' }, { name: 's1', database: ':memory:' }], sharding } as never);

  it('a function algorithm (it names shards, not tables)', async () => {
    @Entity('fn_orders')
    @Sharded({ algorithm: (key: unknown, n: number) => Number(key) % n, tables: 2 })
    class FnOrder {
      @PrimaryColumn('int') @ShardKey() id!: number;
    }
    await expect(open([FnOrder]).initialize()).rejects.toThrow(ShardingConfigError);
    await expect(open([FnOrder]).initialize()).rejects.toThrow(/needs the 'hash' or 'mod' algorithm/);
  });

  it('co-located entities with different layouts', async () => {
    @Entity('co_a') @Sharded({ tables: 2 })
    class CoA { @PrimaryColumn('int') @ShardKey() id!: number; }
    @Entity('co_b') @Sharded({ tables: 3, colocateWith: () => CoA })
    class CoB { @PrimaryColumn('int') @ShardKey() id!: number; }
    await expect(open([CoA, CoB]).initialize()).rejects.toThrow(/CoB \(3 tables per shard\) cannot be co-located with CoA \(2 tables per shard\)/);
  });

  it('a many-to-many relation of a laid-out entity (its junction table cannot declare the layout)', async () => {
    @Entity('mm_tags') @Sharded()
    class Tag { @PrimaryColumn('int') @ShardKey() id!: number; }
    @Entity('mm_posts') @Sharded({ tables: 2 })
    class Post {
      @PrimaryColumn('int') @ShardKey() id!: number;
      @ManyToMany(() => Tag, { createForeignKeyConstraints: false }) @JoinTable() tags!: Tag[];
    }
    await expect(open([Post, Tag]).initialize()).rejects.toThrow(/Map the junction as an entity of its own/);
  });

  it('physical names that are another table, and sharding.tables naming no sharded entity', async () => {
    @Entity('clash') @Sharded({ tables: 2 })
    class Clash { @PrimaryColumn('int') @ShardKey() id!: number; }
    @Entity('clash_1')
    class Other { @PrimaryColumn('int') id!: number; }
    await expect(open([Clash, Other]).initialize()).rejects.toThrow(/"clash_1", which is the table of Other/);
    await expect(open([Other], { tables: { clash_1: 2 } }).initialize()).rejects.toThrow(/sharding.tables names "clash_1", which is the table of no @Sharded\(\) entity/);
    expect(() => open([Other], { tables: 4 })).not.toThrow();
    await expect(open([Other], { tables: 4 }).initialize()).rejects.toThrow(/sharding.tables must be an object/);
  });

  it('sharding.tables lays out a decorated entity as the decorator would', async () => {
    @Entity('cfg_orders') @Sharded()
    class CfgOrder { @PrimaryColumn('int') @ShardKey() id!: number; }
    const ds = await open([CfgOrder], { tables: { cfg_orders: { count: 2, name: 'cfg_part_{index}' } } }).initialize();
    try {
      await ds.synchronize();
      expect(['cfg_part_0', 'cfg_part_1']).toContain(ds.tableOf(CfgOrder, 5));
      const tables = (await ds.getShardDataSource('s0').query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")) as { name: string }[];
      expect(tables.map((t) => t.name)).toEqual(['cfg_part_0', 'cfg_part_1']);
    } finally {
      await ds.destroy();
    }
  });
});

import 'reflect-metadata';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Column,
  DataSource,
  Entity,
  PrimaryColumn,
  Table,
  TableColumn,
  TableForeignKey,
  TableIndex,
  type MigrationInterface,
  type QueryRunner,
} from 'typeorm';
import { Broadcast, Sharded, ShardKey } from '../packages/typeorm-sharding/src/index.js';
import type { Backend } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';
import { openMigrationPair, type MigrationPair } from './support/migration-env.js';

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];

@Entity('accounts')
@Sharded()
class Account {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column('varchar', { length: 20 }) holder!: string;
  @Column('int', { nullable: true }) regionId!: number | null;
  @Column('int', { default: 0 }) flag!: number;
}

@Entity('regions')
@Broadcast()
class Region {
  @PrimaryColumn('int') id!: number;
  @Column('varchar', { length: 20 }) name!: string;
}

@Entity('audit_entries')
class AuditEntry {
  @PrimaryColumn('int') id!: number;
  @Column('varchar', { length: 40 }) line!: string;
}

const ENTITIES = [Account, Region, AuditEntry];
const IDS = Array.from({ length: 12 }, (_, i) => i + 1);
const isSqlite = (q: QueryRunner) => q.connection.driver.options.type === 'better-sqlite3';

/** Tables through the schema API. */
class CreateTables1700000000001 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(new Table({ name: 'regions', columns: [{ name: 'id', type: 'int', isPrimary: true }, { name: 'name', type: 'varchar', length: '20' }] }));
    await q.createTable(
      new Table({
        name: 'accounts',
        columns: [
          { name: 'id', type: 'int', isPrimary: true },
          { name: 'owner', type: 'varchar', length: '20' },
          { name: 'note', type: 'varchar', length: '20', isNullable: true },
        ],
      }),
    );
    await q.createTable(new Table({ name: 'audit_lines', columns: [{ name: 'id', type: 'int', isPrimary: true }, { name: 'line', type: 'varchar', length: '40' }] }));
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('audit_lines');
    await q.dropTable('accounts');
    await q.dropTable('regions');
  }
}

/** Rows, a column, an index and a foreign key to a broadcast table (on SQLite: table rebuilds). */
class AddRegionLink1700000000002 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query('INSERT INTO regions (id, name) VALUES (1, ?), (2, ?)', ['north', 'south']);
    await q.query(`INSERT INTO accounts (id, owner, note) VALUES ${IDS.map((id) => `(${id}, 'o${id}', 'n${id}')`).join(', ')}`);
    await q.query('INSERT INTO audit_lines (id, line) VALUES (1, ?)', ['accounts loaded']);
    await q.addColumn('accounts', new TableColumn({ name: 'regionId', type: 'int', isNullable: true }));
    await q.query('UPDATE accounts SET regionId = 1 + id % 2');
    await q.createIndex('accounts', new TableIndex({ name: 'IDX_accounts_owner', columnNames: ['owner'] }));
    await q.createForeignKey('accounts', new TableForeignKey({ name: 'FK_accounts_region', columnNames: ['regionId'], referencedTableName: 'regions', referencedColumnNames: ['id'] }));
    const table = await q.getTable('accounts');
    const tables = await q.getTables(['accounts', 'regions']);
    if (!table?.findColumnByName('regionId') || !(await q.hasColumn('accounts', 'regionId')) || !(await q.hasTable('regions')) || tables.length !== 2) {
      throw new Error('getTable / getTables / hasColumn / hasTable do not see the new schema');
    }
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropForeignKey('accounts', 'FK_accounts_region');
    await q.dropIndex('accounts', 'IDX_accounts_owner');
    await q.dropColumn('accounts', 'regionId');
    await q.query('DELETE FROM audit_lines');
    await q.query('DELETE FROM accounts');
    await q.query('DELETE FROM regions');
  }
}

/** A dropped column, a renamed column, a renamed unsharded table. */
class Reshape1700000000003 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.dropColumn('accounts', 'note');
    await q.renameColumn('accounts', 'owner', 'holder');
    await q.renameTable('audit_lines', 'audit_entries');
  }
  async down(q: QueryRunner): Promise<void> {
    await q.renameTable('audit_entries', 'audit_lines');
    await q.renameColumn('accounts', 'holder', 'owner');
    await q.addColumn('accounts', new TableColumn({ name: 'note', type: 'varchar', length: '20', isNullable: true }));
  }
}

/** Raw SQL as a generated migration spells it: on SQLite a whole table rebuild; indexes unquoted. */
class RawFlag1700000000004 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    if (isSqlite(q)) {
      await q.query(
        'CREATE TABLE "temporary_accounts" ("id" integer PRIMARY KEY NOT NULL, "holder" varchar(20) NOT NULL, "regionId" integer, "flag" integer NOT NULL DEFAULT (0), ' +
          'CONSTRAINT "FK_accounts_region" FOREIGN KEY ("regionId") REFERENCES "regions" ("id") ON DELETE NO ACTION ON UPDATE NO ACTION)',
      );
      await q.query('INSERT INTO "temporary_accounts"("id", "holder", "regionId") SELECT "id", "holder", "regionId" FROM "accounts"');
      await q.query('DROP TABLE "accounts"');
      await q.query('ALTER TABLE "temporary_accounts" RENAME TO "accounts"');
      await q.query('CREATE INDEX IDX_accounts_holder ON accounts (holder)');
    } else {
      await q.query('ALTER TABLE accounts ADD flag int NOT NULL DEFAULT 0');
      await q.query('DROP INDEX IDX_accounts_owner ON accounts');
      await q.query('CREATE INDEX IDX_accounts_holder ON accounts(holder)');
    }
    await q.query('CREATE INDEX IDX_accounts_flag ON accounts (flag)');
    await q.query('UPDATE accounts SET flag = id % 3');
  }
  async down(q: QueryRunner): Promise<void> {
    if (isSqlite(q)) {
      await q.query('DROP INDEX IDX_accounts_flag');
      await q.query('DROP INDEX "IDX_accounts_holder"');
      await q.query('ALTER TABLE "accounts" RENAME TO "temporary_accounts"');
      await q.query(
        'CREATE TABLE "accounts" ("id" integer PRIMARY KEY NOT NULL, "holder" varchar(20) NOT NULL, "regionId" integer, ' +
          'CONSTRAINT "FK_accounts_region" FOREIGN KEY ("regionId") REFERENCES "regions" ("id") ON DELETE NO ACTION ON UPDATE NO ACTION)',
      );
      await q.query('INSERT INTO "accounts"("id", "holder", "regionId") SELECT "id", "holder", "regionId" FROM "temporary_accounts"');
      await q.query('DROP TABLE "temporary_accounts"');
      await q.query('CREATE INDEX "IDX_accounts_owner" ON "accounts" ("holder")');
    } else {
      await q.query('DROP INDEX IDX_accounts_flag ON accounts');
      await q.query('DROP INDEX IDX_accounts_holder ON accounts');
      await q.query('CREATE INDEX IDX_accounts_owner ON accounts (holder)');
      await q.query('ALTER TABLE accounts DROP COLUMN flag');
    }
  }
}

const MIGRATIONS = [CreateTables1700000000001, AddRegionLink1700000000002, Reshape1700000000003, RawFlag1700000000004];

/** The schema of a table as TypeORM's own `getTable` reads it, in a comparable form. */
async function schemaOf(ds: DataSource, table: string): Promise<unknown> {
  const q = ds.createQueryRunner();
  try {
    const t = await q.getTable(table);
    if (!t) return undefined;
    return {
      columns: t.columns.map((c) => ({ name: c.name, type: c.type, length: c.length, nullable: c.isNullable, primary: c.isPrimary, default: c.default })),
      indices: t.indices.map((i) => ({ name: i.name, columns: i.columnNames, unique: i.isUnique })).sort((a, b) => String(a.name).localeCompare(String(b.name))),
      foreignKeys: t.foreignKeys.map((f) => ({ name: f.name, columns: f.columnNames, to: f.referencedTableName, toColumns: f.referencedColumnNames })),
    };
  } finally {
    await q.release();
  }
}

/** Names of the tables of one database (the migrations table included). */
async function tablesOf(ds: DataSource): Promise<string[]> {
  const sql =
    ds.options.type === 'better-sqlite3'
      ? "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
      : 'SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()';
  return ((await ds.query(sql)) as { name: string }[]).map((r) => r.name).sort();
}

/**
 * Every shard against the plain database: sharded and broadcast tables with the plain schema
 * on every shard, the other tables (migrations included) on the default shard only; each
 * account row on its own shard and nowhere else, regions everywhere.
 */
async function expectShardsMatchPlain(env: MigrationPair): Promise<void> {
  const { sharded, plain } = env;
  const plainTables = await tablesOf(plain);
  const distributed = plainTables.filter((t) => t === 'accounts' || t === 'regions');
  for (const shard of sharded.shardNames) {
    const ds = sharded.getShardDataSource(shard);
    expect(await tablesOf(ds), `tables of ${shard}`).toEqual(shard === 's0' ? plainTables : distributed);
    for (const table of shard === 's0' ? plainTables : distributed) {
      expect(await schemaOf(ds, table), `${table} on ${shard}`).toEqual(await schemaOf(plain, table));
    }
    if (distributed.includes('accounts')) {
      const rows = (await ds.query('SELECT id FROM accounts ORDER BY id')) as { id: number }[];
      const plainIds = ((await plain.query('SELECT id FROM accounts ORDER BY id')) as { id: number }[]).map((r) => Number(r.id));
      expect(rows.map((r) => Number(r.id)), `accounts on ${shard}`).toEqual(plainIds.filter((id) => sharded.shardOf(Account, id) === shard));
    }
    if (distributed.includes('regions')) {
      expect(await ds.query('SELECT id, name FROM regions ORDER BY id'), `regions on ${shard}`).toEqual(await plain.query('SELECT id, name FROM regions ORDER BY id'));
    }
  }
  if (distributed.includes('accounts')) {
    const all = 'SELECT * FROM accounts ORDER BY id';
    expect(await sharded.query(all)).toEqual(await plain.query(all));
  }
}

async function showBoth(env: MigrationPair): Promise<boolean> {
  const [sharded, plain] = await Promise.all([env.sharded.showMigrations(), env.plain.showMigrations()]);
  expect(sharded, 'showMigrations() agrees with TypeORM').toBe(plain);
  return sharded;
}

describe.each(backends)('migrations through the QueryRunner schema API on %s', (backend) => {
  let env: MigrationPair;
  afterEach(async () => env?.close());

  it.each(['all', 'each', 'none'] as const)('run and undo one by one (transaction: %s): every shard matches one plain database', async (transaction) => {
    env = await openMigrationPair(backend, ENTITIES, MIGRATIONS, 3, { migrationsTransactionMode: transaction });
    expect(await showBoth(env)).toBe(true);
    const ran = await env.sharded.runMigrations({ transaction });
    const plainRan = await env.plain.runMigrations({ transaction });
    expect(ran.map((m) => m.name)).toEqual(plainRan.map((m) => m.name));
    expect(await showBoth(env)).toBe(false);
    await expectShardsMatchPlain(env);
    expect((await env.sharded.getRepository(Account).find({ order: { id: 'ASC' } })).map((a) => [a.id, a.holder, a.regionId, a.flag])).toEqual(
      (await env.plain.getRepository(Account).find({ order: { id: 'ASC' } })).map((a) => [a.id, a.holder, a.regionId, a.flag]),
    );

    for (let left = MIGRATIONS.length; left > 0; left--) {
      await env.sharded.undoLastMigration({ transaction });
      await env.plain.undoLastMigration({ transaction });
      expect(await showBoth(env)).toBe(true);
      await expectShardsMatchPlain(env);
    }
    expect(await tablesOf(env.sharded.getShardDataSource('s1'))).toEqual([]);
  });

  it('a failing migration leaves every shard as it leaves one plain database, and showMigrations() agrees', async () => {
    class Failing1700000000005 implements MigrationInterface {
      async up(q: QueryRunner): Promise<void> {
        await q.createIndex('accounts', new TableIndex({ name: 'IDX_accounts_regionId', columnNames: ['regionId'] }));
        await q.addColumn('accounts', new TableColumn({ name: 'extra', type: 'int', isNullable: true }));
        throw new Error('migration failed on purpose');
      }
      async down(): Promise<void> {}
    }
    env = await openMigrationPair(backend, ENTITIES, [CreateTables1700000000001, AddRegionLink1700000000002, Failing1700000000005], 3);
    await expect(env.sharded.runMigrations()).rejects.toThrow('migration failed on purpose');
    await expect(env.plain.runMigrations()).rejects.toThrow('migration failed on purpose');
    expect(await showBoth(env)).toBe(true);
    await expectShardsMatchPlain(env);
  });
});

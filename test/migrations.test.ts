import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { Column, Entity, PrimaryColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { ShardedDataSource, Sharded, ShardKey } from '../packages/typeorm-sharding/src/index.js';

@Entity('accounts')
@Sharded()
class Account {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column('varchar', { length: 20 }) owner!: string;
}

class CreateAccounts1700000000000 implements MigrationInterface {
  name = 'CreateAccounts1700000000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE TABLE "accounts" ("id" integer PRIMARY KEY NOT NULL, "owner" varchar(20) NOT NULL)');
    await q.query('CREATE TABLE "audit_log" ("id" integer PRIMARY KEY NOT NULL, "line" varchar NOT NULL)');
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE "audit_log"');
    await q.query('DROP TABLE "accounts"');
  }
}

describe('migrations through a ShardedDataSource', () => {
  it('create sharded tables on every shard, other tables and the migrations table on the default shard', async () => {
    const ds = await new ShardedDataSource({
      type: 'better-sqlite3',
      entities: [Account],
      migrations: [CreateAccounts1700000000000],
      migrationsRun: true,
      shards: [0, 1, 2].map((i) => ({ name: `s${i}`, database: ':memory:' })),
    }).initialize();
    try {
      const tables = async (shard: string) =>
        ((await ds.getShardDataSource(shard).query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")) as { name: string }[]).map((r) => r.name);
      expect(await tables('s0')).toEqual(['accounts', 'audit_log', 'migrations']);
      expect(await tables('s1')).toEqual(['accounts']);
      expect(await tables('s2')).toEqual(['accounts']);
      await ds.getRepository(Account).save([1, 2, 3, 4, 5, 6].map((id) => ({ id, owner: `o${id}` })));
      expect(await ds.getRepository(Account).count()).toBe(6);
      await ds.undoLastMigration();
      expect(await tables('s1')).toEqual([]);
      expect(await tables('s0')).toEqual(['migrations']);
    } finally {
      await ds.destroy();
    }
  });
});

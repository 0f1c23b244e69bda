import { DataSource, type MigrationInterface } from 'typeorm';
import { ShardedDataSource } from '../../packages/typeorm-sharding/src/index.js';
import type { Backend } from './backends.js';
import { createDatabases, dropDatabases, MARIADB } from './mariadb.js';

/** A sharded data source and one plain DataSource with the same entities and migrations, no schema yet. */
export interface MigrationPair {
  readonly sharded: ShardedDataSource;
  readonly plain: DataSource;
  close(): Promise<void>;
}

let counter = 0;

/**
 * Opens both sources without synchronize: the schema comes from `migrations` only. SQLite
 * uses in-memory databases; MariaDB fresh databases dropped on close.
 */
export async function openMigrationPair(
  backend: Backend,
  entities: Function[],
  migrations: (new () => MigrationInterface)[],
  shardCount: number,
  extra: Record<string, unknown> = {},
): Promise<MigrationPair> {
  const prefix = `tsm_${process.pid}_${++counter}`;
  const names = Array.from({ length: shardCount }, (_, i) => `${prefix}_s${i}`);
  const common = { entities, migrations, ...extra };
  let sharded: ShardedDataSource;
  let plain: DataSource;
  if (backend === 'sqlite') {
    sharded = new ShardedDataSource({ type: 'better-sqlite3', ...common, shards: names.map((_, i) => ({ name: `s${i}`, database: ':memory:' })) } as never);
    plain = new DataSource({ type: 'better-sqlite3', database: ':memory:', ...common } as never);
  } else {
    await createDatabases([...names, `${prefix}_plain`]);
    const server = { host: MARIADB.host, port: MARIADB.port, username: MARIADB.user, password: MARIADB.password };
    sharded = new ShardedDataSource({ type: 'mariadb', ...server, ...common, shards: names.map((database, i) => ({ name: `s${i}`, database })) } as never);
    plain = new DataSource({ type: 'mariadb', ...server, database: `${prefix}_plain`, ...common } as never);
  }
  await sharded.initialize();
  await plain.initialize();
  return {
    sharded,
    plain,
    async close() {
      await sharded.destroy().catch(() => undefined);
      await plain.destroy().catch(() => undefined);
      if (backend === 'mariadb') await dropDatabases([...names, `${prefix}_plain`]);
    },
  };
}

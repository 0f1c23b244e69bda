// Data sources of the benchmark: the sharded ones (pruning on / off), the unsharded one,
// raw mysql2 pools per shard, and the SQLite pair for the overhead case.
import { availableParallelism } from 'node:os';
import mysql from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { ShardedDataSource } from 'typeorm-sharding';
import { Order, Page, orderRow } from './entities.mjs';
import { MARIADB, PLAIN_DB, shardDb } from './mariadb.mjs';

export const WINDOW = availableParallelism();
export const MAX_IN = 256;

/**
 * A ShardedDataSource over bench_s0..bench_s{count-1}, all on the one MariaDB server: one pool
 * of `poolSize` for the server. `coalesce: false` sends one statement per shard (the article's
 * setting); by default the statements to the server's shards are one UNION ALL per 16 shards.
 */
export function shardedMariadb({ count, entities, pruning = true, coalesce = true, poolSize, synchronize = false, onPhysicalQuery, extra = {} }) {
  return new ShardedDataSource({
    type: 'mariadb',
    host: MARIADB.host,
    port: MARIADB.port,
    username: MARIADB.user,
    password: MARIADB.password,
    entities,
    synchronize,
    poolSize,
    shards: Array.from({ length: count }, (_, i) => ({ name: `s${i}`, database: shardDb(i) })),
    sharding: { pruning, coalesce, concurrency: WINDOW, maxInValuesPerQuery: MAX_IN, ...extra, ...(onPhysicalQuery ? { onPhysicalQuery } : {}) },
  });
}

export function plainMariadb({ entities, poolSize, synchronize = false, logger }) {
  return new DataSource({
    type: 'mariadb',
    host: MARIADB.host,
    port: MARIADB.port,
    username: MARIADB.user,
    password: MARIADB.password,
    database: PLAIN_DB,
    entities,
    synchronize,
    poolSize,
    ...(logger ? { logger, logging: ['query'] } : {}),
  });
}

/** One raw mysql2 pool per shard database (same topology as the plugin's shard pools). */
export function rawPools(count, poolSize) {
  return Array.from({ length: count }, (_, i) => mysql.createPool({ ...MARIADB, database: shardDb(i), connectionLimit: poolSize }));
}

/** The SQLite pair: a 64-shard in-memory ShardedDataSource and one in-memory DataSource, same rows. */
export async function sqlitePair({ count, rowsPerShard }) {
  const sharded = new ShardedDataSource({
    type: 'better-sqlite3',
    entities: [Order],
    synchronize: true,
    shards: Array.from({ length: count }, (_, i) => ({ name: `s${i}`, database: ':memory:' })),
    sharding: { concurrency: WINDOW, maxInValuesPerQuery: MAX_IN },
  });
  const plain = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: [Order], synchronize: true });
  await sharded.initialize();
  await plain.initialize();
  const total = count * rowsPerShard;
  const algorithm = sharded.shardingRules.ruleOf('orders').shardKey.algorithm;
  const insertSql = 'INSERT INTO orders (id, buyerId, amount, note, createdAt) VALUES (?, ?, ?, ?, ?)';
  const dbs = sharded.shardNames.map((n) => sharded.getShardDataSource(n).driver.databaseConnection);
  const inserts = dbs.map((db) => db.prepare(insertSql));
  const plainDb = plain.driver.databaseConnection;
  const plainInsert = plainDb.prepare(insertSql);
  const toSqlite = (row) => row.map((v) => (v instanceof Date ? v.toISOString().replace('T', ' ').replace('Z', '') : v));
  for (const db of [...dbs, plainDb]) db.exec('BEGIN');
  for (let id = 1; id <= total; id++) {
    const row = toSqlite(orderRow(id));
    inserts[algorithm.shardIndexOf(id)].run(row);
    plainInsert.run(row);
  }
  for (const db of [...dbs, plainDb]) db.exec('COMMIT');
  return { sharded, plain, total };
}

export { Order, Page };

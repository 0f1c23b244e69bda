import mysql from 'mysql2/promise';

/** Recreates the demo's shard databases demo_shard_0..n-1 on the MariaDB server. */
export async function prepareMariaDb(shards: number): Promise<void> {
  const c = await mysql.createConnection({
    host: process.env.DEMO_MYSQL_HOST ?? '127.0.0.1',
    port: Number(process.env.DEMO_MYSQL_PORT ?? 3306),
    user: process.env.DEMO_MYSQL_USER ?? 'root',
    password: process.env.DEMO_MYSQL_PASSWORD ?? '',
  });
  try {
    for (let i = 0; i < shards; i++) {
      await c.query(`DROP DATABASE IF EXISTS demo_shard_${i}`);
      await c.query(`CREATE DATABASE demo_shard_${i}`);
    }
  } finally {
    await c.end();
  }
}

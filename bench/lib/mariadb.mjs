// MariaDB administration for the benchmark: databases, max_connections, load.
import mysql from 'mysql2/promise';
import { orderRow, ORDER_COLUMNS, pageRow, PAGE_COLUMNS } from './entities.mjs';
import { progressBar } from './util.mjs';

export const MARIADB = { host: process.env.BENCH_MYSQL_HOST ?? '127.0.0.1', port: Number(process.env.BENCH_MYSQL_PORT ?? 3306), user: process.env.BENCH_MYSQL_USER ?? 'root', password: process.env.BENCH_MYSQL_PASSWORD ?? '' };

export const shardDb = (i) => `bench_s${i}`;
export const PLAIN_DB = 'bench_plain';

export async function adminConnection() {
  return mysql.createConnection({ ...MARIADB, multipleStatements: false });
}

export async function serverVariable(admin, name) {
  const [rows] = await admin.query('SHOW GLOBAL VARIABLES LIKE ?', [name]);
  return rows[0]?.Value;
}

export async function threadsConnected(admin) {
  const [rows] = await admin.query("SHOW GLOBAL STATUS LIKE 'Threads_connected'");
  return Number(rows[0]?.Value);
}

/** Drops and re-creates bench_s0..bench_s{n-1} and bench_plain. */
export async function createDatabases(admin, shardCount) {
  for (const db of [...Array.from({ length: shardCount }, (_, i) => shardDb(i)), PLAIN_DB]) {
    await admin.query(`DROP DATABASE IF EXISTS \`${db}\``);
    await admin.query(`CREATE DATABASE \`${db}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
  }
}

export async function dropDatabases(admin, shardCount) {
  for (const db of [...Array.from({ length: shardCount }, (_, i) => shardDb(i)), PLAIN_DB]) {
    await admin.query(`DROP DATABASE IF EXISTS \`${db}\``);
  }
}

/**
 * Loads ids 1..total of `table` into the shard databases (routed with the library's own
 * hash, `shardIndexOf`) and then copies every shard into bench_plain server-side, so both
 * copies hold exactly the same rows. Multi-row INSERTs over a small pool; progress on stderr.
 */
export async function loadTable({ table, columns, rowOf, total, shardIndexOf, shardCount, label, batch = 2000, parallel = 3 }) {
  const pool = mysql.createPool({ ...MARIADB, connectionLimit: parallel });
  const bar = progressBar(label, total * 2);
  try {
    // Route every id once, then cut each shard's ids into batches; rows are built lazily.
    const ids = Array.from({ length: shardCount }, () => []);
    for (let id = 1; id <= total; id++) ids[shardIndexOf(id)].push(id);
    const jobs = [];
    for (let s = 0; s < shardCount; s++) {
      for (let i = 0; i < ids[s].length; i += batch) jobs.push({ shard: s, ids: ids[s].slice(i, i + batch) });
    }
    const cols = columns.map((c) => `\`${c}\``).join(', ');
    let k = 0;
    const worker = async () => {
      while (k < jobs.length) {
        const job = jobs[k++];
        const rows = job.ids.map((id) => rowOf(id, total));
        await pool.query(`INSERT INTO \`${shardDb(job.shard)}\`.\`${table}\` (${cols}) VALUES ?`, [rows]);
        bar.tick(rows.length);
      }
    };
    await Promise.all(Array.from({ length: parallel }, worker));
    // The unsharded copy: server-side copy of every shard.
    let s = 0;
    const copier = async () => {
      while (s < shardCount) {
        const i = s++;
        const [res] = await pool.query(`INSERT INTO \`${PLAIN_DB}\`.\`${table}\` (${cols}) SELECT ${cols} FROM \`${shardDb(i)}\`.\`${table}\``);
        bar.tick(res.affectedRows);
      }
    };
    await Promise.all(Array.from({ length: parallel }, copier));
    bar.finish();
    for (let i = 0; i < shardCount; i++) await pool.query(`ANALYZE TABLE \`${shardDb(i)}\`.\`${table}\``);
    await pool.query(`ANALYZE TABLE \`${PLAIN_DB}\`.\`${table}\``);
  } finally {
    await pool.end();
  }
}

export const loadOrders = (opts) => loadTable({ ...opts, table: 'orders', columns: ORDER_COLUMNS, rowOf: orderRow });
export const loadPages = (opts) => loadTable({ ...opts, table: 'pages', columns: PAGE_COLUMNS, rowOf: pageRow });

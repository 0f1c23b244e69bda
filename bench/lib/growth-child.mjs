// One growth measurement in a fresh process (so RSS is this configuration's alone):
//   node --expose-gc bench/lib/growth-child.mjs <sqlite|mariadb> <shards> <dir-or-db-prefix>
// The shards' schema exists already (bench/cases/growth.mjs made it). Prints one JSON line:
// initialize() time and RSS, findOneBy time, a scattered count()'s Node CPU per shard, and the
// plan cache's heap per cached shape.
import 'reflect-metadata';
import { join } from 'node:path';
import { ShardedDataSource } from 'typeorm-sharding';
import { Order } from './entities.mjs';
import { MARIADB } from './mariadb.mjs';

const [backend, shardsText, where] = process.argv.slice(2);
const shards = Number(shardsText);
const gc = globalThis.gc ?? (() => {});
const MiB = 2 ** 20;

function options() {
  const names = Array.from({ length: shards }, (_, i) => `s${i}`);
  if (backend === 'sqlite') return { type: 'better-sqlite3', entities: [Order], shards: names.map((name, i) => ({ name, database: join(where, `s${i}.db`) })) };
  return {
    type: 'mariadb', host: MARIADB.host, port: MARIADB.port, username: MARIADB.user, password: MARIADB.password, entities: [Order], poolSize: 8,
    shards: names.map((name, i) => ({ name, database: `${where}${i}` })),
  };
}

/** Mean µs of `fn` over `n` calls after `warm` calls. */
async function timed(fn, n, warm) {
  for (let i = 0; i < warm; i++) await fn(i);
  const t = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  return ((performance.now() - t) * 1000) / n;
}

gc();
const rssBefore = process.memoryUsage().rss;
const t0 = performance.now();
const ds = await new ShardedDataSource(options()).initialize();
const initMs = performance.now() - t0;
gc();
const mem = process.memoryUsage();
const out = { backend, shards, initMs, rssMiB: mem.rss / MiB, rssDeltaMiB: (mem.rss - rssBefore) / MiB, heapMiB: mem.heapUsed / MiB };
try {
  const repo = ds.getRepository(Order);
  // Warm-up over every shard several times: each shard's first statements prepare and read cold pages (SQLite files).
  out.findOneByUs = await timed((i) => repo.findOneBy({ id: String(1 + (i * 7919) % 1_000_000) }), 2000, Math.max(300, 4 * shards));
  // Node's own CPU for a count() over every shard (SQLite's engine runs in this process too).
  const calls = shards >= 1024 ? 20 : shards >= 256 ? 60 : 300;
  await timed(() => repo.count(), Math.max(3, calls / 10), 0);
  const cpu0 = process.cpuUsage();
  const wall = await timed(() => repo.count(), calls, 0);
  const cpu = process.cpuUsage(cpu0);
  out.countUs = wall;
  out.countCpuUsPerShard = (cpu.user + cpu.system) / calls / shards;
  if (backend === 'sqlite') {
    // The ceiling: SQLite's own COUNT(*) on the same files in this process, through raw
    // better-sqlite3 statements prepared once per shard; plugin − raw is the plugin's own cost.
    const raw = ds.shardNames.map((name) => ds.getShardDataSource(name).driver.databaseConnection.prepare('SELECT COUNT(*) AS "cnt" FROM "orders"'));
    const countRaw = () => {
      let n = 0;
      for (const statement of raw) n += statement.get().cnt;
      return n;
    };
    await timed(countRaw, Math.max(3, calls / 10), 0);
    const rawCpu0 = process.cpuUsage();
    await timed(countRaw, calls, 0);
    const rawCpu = process.cpuUsage(rawCpu0);
    out.rawCountCpuUsPerShard = (rawCpu.user + rawCpu.system) / calls / shards;
    out.pluginCountCpuUsPerShard = out.countCpuUsPerShard - out.rawCountCpuUsPerShard;
  }
  // Plan cache: heap kept per cached shape (distinct texts, each planned once).
  const shapes = 200;
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const before = ds.planCacheStats.size ?? ds.planCacheStats.entries;
  for (let i = 0; i < shapes; i++) ds.explain(`SELECT id AS c${i}, amount FROM orders WHERE id IN (?, ?) AND amount > ?`, [1, 2, 3]);
  gc();
  out.planCacheBytesPerShape = (process.memoryUsage().heapUsed - heap0) / shapes;
  out.planCacheStats = { ...ds.planCacheStats, before };
  out.rssAfterMiB = process.memoryUsage().rss / MiB;
} catch (e) {
  out.error = String(e?.stack ?? e);
} finally {
  await ds.destroy();
}
console.log(JSON.stringify(out));

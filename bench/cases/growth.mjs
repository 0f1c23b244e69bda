// Growth with the shard count (issue 18 item 5): 16, 256 and 1,024 shards as SQLite files and
// as MariaDB databases on the benchmark's server. Each configuration is measured in a fresh
// process (bench/lib/growth-child.mjs), so its RSS is its own: initialize() time and RSS,
// findOneBy time (should stay flat), a scattered count()'s Node CPU per shard, plan-cache heap
// per cached shape. The schemas are made here first, outside the measurement.
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { errorMessage, log } from '../lib/util.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);
export const GROWTH_SHARDS = [16, 256, 1024];
/** --quick (the CI smoke run): the same structure, small counts. */
const QUICK_SHARDS = [16, 64];
const DB_PREFIX = 'bench_g';
const TABLE = 'orders (id bigint NOT NULL PRIMARY KEY, buyerId int NOT NULL, amount int NOT NULL, note varchar(40) NOT NULL, createdAt datetime NOT NULL)';

async function measure(backend, shards, where, reps) {
  const results = [];
  for (let r = 0; r < reps; r++) {
    const { stdout } = await run(process.execPath, ['--expose-gc', join(HERE, '../lib/growth-child.mjs'), backend, String(shards), where], { maxBuffer: 1 << 20, env: process.env });
    results.push(JSON.parse(stdout.trim().split('\n').pop()));
  }
  // The run with the median initialize() time.
  results.sort((a, b) => a.initMs - b.initMs);
  return results[Math.floor(results.length / 2)];
}

export async function runGrowth(ctx, admin) {
  const reps = ctx.cfg.quick ? 1 : 3;
  const counts = ctx.cfg.quick ? QUICK_SHARDS : GROWTH_SHARDS;
  const max = Math.max(...counts);
  const out = { shards: counts, sqlite: [], mariadb: [] };
  const dir = join(tmpdir(), `tsh-growth-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  try {
    log(`[growth] ${max} SQLite files and ${max} MariaDB databases`);
    for (let i = 0; i < max; i++) {
      const db = new Database(join(dir, `s${i}.db`));
      db.exec(`CREATE TABLE IF NOT EXISTS ${TABLE}`);
      db.close();
    }
    for (let i = 0; i < max; i++) {
      await admin.query(`CREATE DATABASE IF NOT EXISTS \`${DB_PREFIX}${i}\``);
      await admin.query(`CREATE TABLE IF NOT EXISTS \`${DB_PREFIX}${i}\`.${TABLE}`);
    }
    for (const shards of counts) {
      for (const [backend, where] of [['sqlite', dir], ['mariadb', DB_PREFIX]]) {
        try {
          const r = await measure(backend, shards, where, reps);
          out[backend].push(r);
          log(`[growth] ${backend} ${shards} shards: initialize ${r.initMs.toFixed(0)} ms, RSS ${r.rssMiB.toFixed(0)} MiB, findOneBy ${r.findOneByUs?.toFixed(0)} µs, count() ${r.countCpuUsPerShard?.toFixed(1)} µs CPU/shard${r.rawCountCpuUsPerShard === undefined ? '' : ` (raw SQLite ${r.rawCountCpuUsPerShard.toFixed(1)}, the plugin's own ${r.pluginCountCpuUsPerShard.toFixed(1)})`}, plan cache ${(r.planCacheBytesPerShape / 1024).toFixed(1)} KiB/shape${r.error ? ` (error: ${r.error})` : ''}`);
        } catch (e) {
          out[backend].push({ shards, error: errorMessage(e) });
          log(`[growth] ${backend} ${shards} shards failed: ${errorMessage(e)}`);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (!ctx.cfg.keep) for (let i = 0; i < max; i++) await admin.query(`DROP DATABASE IF EXISTS \`${DB_PREFIX}${i}\``).catch(() => undefined);
  }
  return out;
}

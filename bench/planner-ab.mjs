#!/usr/bin/env node
// The planner (ds.explain: parameterize → plan-cache hit → route → rewrite) of two builds of the
// plugin side by side in one process, alternating rounds, so a loaded machine treats both alike:
//   node --expose-gc bench/planner-ab.mjs --a=/path/to/base/dist --b=packages/typeorm-sharding/dist \
//        [--sizes=8,1,32,128] [--rounds=20] [--per=1000] [--only=mysql|sqlite] [--coalesce=on] [--build=A|B] [--yardstick=off]
// (coalescing off by default, as the benchmark's planner case runs it: one statement per shard).
// MariaDB: BENCH_MYSQL_PORT (64 databases bench_s0..63 are created if missing); SQLite: 64 in-memory shards.
// Prints wall and CPU-time p50/p99 (µs) per build, dialect and IN size, and TypeORM's own SQL
// build for the same find (the yardstick of REPORT.md §5).
import 'reflect-metadata';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Column, Entity, In, PrimaryColumn } from 'typeorm';
import { MARIADB, shardDb } from './lib/mariadb.mjs';
import { idLists, percentile } from './lib/util.mjs';
import mysql from 'mysql2/promise';

const flags = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const builds = [
  { name: 'A', dir: resolve(flags.a ?? 'packages/typeorm-sharding/dist-base') },
  { name: 'B', dir: resolve(flags.b ?? 'packages/typeorm-sharding/dist') },
].filter((b) => !flags.build || b.name === flags.build);
const sizes = (flags.sizes ?? '8').split(',').map(Number);
const rounds = Number(flags.rounds ?? 20);
const per = Number(flags.per ?? 1000);
const dialects = flags.only ? [flags.only] : ['mysql', 'sqlite'];
const SHARDS = 64;
const gc = globalThis.gc ?? (() => {});

async function entityFor(lib) {
  class Order {}
  PrimaryColumn('bigint')(Order.prototype, 'id');
  lib.ShardKey()(Order.prototype, 'id');
  Column('int')(Order.prototype, 'buyerId');
  Column('int')(Order.prototype, 'amount');
  Column('varchar', { length: 40 })(Order.prototype, 'note');
  Column('datetime')(Order.prototype, 'createdAt');
  Entity('orders')(Order);
  lib.Sharded()(Order);
  return Order;
}

async function sourceOf(lib, Order, dialect) {
  const shards = Array.from({ length: SHARDS }, (_, i) => ({ name: `s${i}`, database: dialect === 'mysql' ? shardDb(i) : ':memory:' }));
  const common = { entities: [Order], synchronize: true, shards, sharding: { maxInValuesPerQuery: 256, coalesce: flags.coalesce === 'on' } };
  const ds = dialect === 'mysql'
    ? new lib.ShardedDataSource({ type: 'mariadb', host: MARIADB.host, port: MARIADB.port, username: MARIADB.user, password: MARIADB.password, poolSize: 2, ...common })
    : new lib.ShardedDataSource({ type: 'better-sqlite3', ...common });
  return ds.initialize();
}

if (dialects.includes('mysql')) {
  const admin = await mysql.createConnection(MARIADB);
  for (let i = 0; i < SHARDS; i++) await admin.query(`CREATE DATABASE IF NOT EXISTS \`${shardDb(i)}\``);
  await admin.end();
}

const variants = [];
for (const b of builds) {
  const lib = await import(pathToFileURL(resolve(b.dir, 'index.js')).href);
  const Order = await entityFor(lib);
  for (const dialect of dialects) variants.push({ build: b.name, dialect, Order, ds: await sourceOf(lib, Order, dialect) });
}

const sqlOf = (v, ids) => v.ds.createQueryBuilder(v.Order, 'Order').setFindOptions({ where: { id: In(ids) } }).getQueryAndParameters();
const stats = (xs) => {
  const s = Float64Array.from(xs).sort();
  return { p50: percentile(s, 50), p99: percentile(s, 99) };
};

for (const dialect of dialects) {
  for (const size of sizes) {
    const lists = idLists(size, 2048, SHARDS * 10_000, 4000 + size);
    const pair = variants.filter((v) => v.dialect === dialect);
    for (const v of pair) {
      v.inputs = lists.map((ids) => sqlOf(v, ids));
      for (let w = 0; w < 3; w++) for (const [sql, ps] of v.inputs) v.ds.explain(sql, ps);
      v.wall = [];
      v.cpu = [];
      v.typeorm = [];
      v.statements = v.ds.explain(...v.inputs[0]).length;
    }
    let k = 0;
    for (let r = 0; r < rounds; r++) {
      for (const v of r % 2 === 0 ? pair : [...pair].reverse()) {
        gc();
        for (let i = 0; i < per; i++) {
          const [sql, ps] = v.inputs[(k + i) % v.inputs.length];
          const c0 = process.cpuUsage();
          const t = process.hrtime.bigint();
          v.ds.explain(sql, ps);
          v.wall.push(Number(process.hrtime.bigint() - t) / 1000);
          const c1 = process.cpuUsage(c0);
          v.cpu.push(c1.user + c1.system);
          if (flags.yardstick === 'off') continue;
          const t2 = process.hrtime.bigint();
          sqlOf(v, lists[(k + i) % lists.length]);
          v.typeorm.push(Number(process.hrtime.bigint() - t2) / 1000);
        }
      }
      k += per;
    }
    for (const v of pair) {
      const w = stats(v.wall);
      const c = stats(v.cpu);
      const t = stats(v.typeorm);
      console.log(`${dialect} IN ${String(size).padStart(3)} build ${v.build}: wall p50 ${w.p50.toFixed(1)} p99 ${w.p99.toFixed(1)} µs | CPU p50 ${c.p50.toFixed(0)} p99 ${c.p99.toFixed(0)} µs | TypeORM build p50 ${t.p50.toFixed(1)} µs → ${(w.p50 / t.p50).toFixed(2)}× | ${v.statements} statement(s) | n=${v.wall.length}`);
    }
  }
}
for (const v of variants) await v.ds.destroy();

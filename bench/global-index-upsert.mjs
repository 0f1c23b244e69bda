#!/usr/bin/env node
// Upserts on a globally unique key (issue 16, item 3): repository.upsert(row, ['email']) of a new
// email and of an owned one (same id: an update in place; a new id: the row moves), against
// insert() of a new row and save() of an existing one (the read-then-write an application wrote
// before upserts were routed), side by side on one server, 16 shards, one client. Prints per
// variant the round trips one call makes, Node CPU per call and the mean time. Writes no file.
//
//   pnpm --filter typeorm-sharding run build && node bench/global-index-upsert.mjs [--quick]
//   BENCH_MYSQL_PORT=3313 to use another server.
import 'reflect-metadata';
import mysql from 'mysql2/promise';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { ShardedDataSource, Sharded, ShardKey } from 'typeorm-sharding';
import { alternate } from './lib/loop.mjs';
import { MARIADB } from './lib/mariadb.mjs';

const quick = process.argv.includes('--quick');
const SHARDS = 16;
const USERS = 2_000;
const timing = { reps: quick ? 1 : 3, warmupMs: quick ? 100 : 300, durationMs: quick ? 500 : 1_500, minOps: 20, clients: 1 };

class UUser {}
PrimaryColumn('int')(UUser.prototype, 'id');
ShardKey()(UUser.prototype, 'id');
Column({ type: 'varchar', length: 80, unique: true })(UUser.prototype, 'email');
Column({ type: 'varchar', length: 40 })(UUser.prototype, 'name');
Entity('bu_users')(UUser);
Sharded()(UUser);

const db = (i) => `bench_gu_${i}`;
const open = (onPhysicalQuery) =>
  new ShardedDataSource({
    type: 'mariadb',
    host: MARIADB.host,
    port: MARIADB.port,
    username: MARIADB.user,
    password: MARIADB.password,
    entities: [UUser],
    poolSize: 8,
    shards: Array.from({ length: SHARDS }, (_, i) => ({ name: `s${i}`, database: db(i) })),
    sharding: { ...(onPhysicalQuery ? { onPhysicalQuery } : {}) },
  }).initialize();

const admin = await mysql.createConnection(MARIADB);
for (let i = 0; i < SHARDS; i++) {
  await admin.query(`DROP DATABASE IF EXISTS \`${db(i)}\``);
  await admin.query(`CREATE DATABASE \`${db(i)}\``);
}
const seed = await open();
await seed.synchronize();
for (let from = 0; from < USERS; from += 500) {
  await seed.getRepository(UUser).insert(Array.from({ length: 500 }, (_, k) => ({ id: from + k + 1, email: `user${from + k + 1}@x`, name: 'seed' })));
}
await seed.destroy();

// Fresh ids and emails per call for the variants that add rows; owned ones for the others.
let fresh = 1_000_000;
const owned = (i) => 1 + ((i * 7919) % (USERS / 2));
let moves = 0; // rows of the second half move to a new id and back, in turn
const variants = (ds) => {
  const repo = ds.getRepository(UUser);
  return [
    { key: 'insert new', op: async () => { const id = fresh++; await repo.insert({ id, email: `n${id}@x`, name: 'n' }); } },
    { key: 'upsert new', op: async () => { const id = fresh++; await repo.upsert({ id, email: `n${id}@x`, name: 'n' }, ['email']); } },
    { key: 'upsert owned, same id', op: async (i) => { const id = owned(i); await repo.upsert({ id, email: `user${id}@x`, name: `v${i}` }, ['email']); } },
    { key: 'save owned', op: async (i) => { const id = owned(i); await repo.save({ id, email: `user${id}@x`, name: `s${i}` }); } },
    { key: 'upsert owned, new id (move)', op: async () => { const n = moves++; const id = USERS / 2 + 1 + (n % (USERS / 2)); const away = Math.floor(n / (USERS / 2)) % 2 === 0; await repo.upsert({ id: away ? id + 5_000_000 : id, email: `user${id}@x`, name: 'm' }, ['email']); } },
  ];
};

const events = [];
const probe = await open((e) => events.push(e));
const shape = {};
for (const v of variants(probe)) {
  await v.op(1);
  events.length = 0;
  await v.op(2);
  shape[v.key] = events.length;
}
await probe.destroy();
const ds = await open();
const result = await alternate(variants(ds), timing);
await ds.destroy();
for (let i = 0; i < SHARDS; i++) await admin.query(`DROP DATABASE IF EXISTS \`${db(i)}\``);
await admin.end();

const fmt = (x) => (Number.isFinite(x) ? x.toFixed(2) : String(x));
console.log(`| variant (${SHARDS} shards, one server, 1 client) | round trips | Node CPU µs/call | mean ms |`);
console.log('|---|---|---|---|');
for (const [key, r] of Object.entries(result)) console.log(`| ${key} | ${shape[key]} | ${r.error ? `ERROR ${r.error}` : Math.round(r.nodeCpuUs)} | ${fmt(r.mean)} |`);
process.exit(0);

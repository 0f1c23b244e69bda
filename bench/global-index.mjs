#!/usr/bin/env node
// Global unique index reads (issue 16's benchmark, one server): findOneBy({ email }) routed
// through the lookup table against the same call scattered (the key listed in uniquePerShard, so
// no lookup), and findOneBy({ id }), at 16 and 64 shards, 1 and 16 clients. Prints a table and,
// per variant, the physical statements and round trips one call makes. Writes no file.
//
//   pnpm --filter typeorm-sharding run build && node bench/global-index.mjs [--quick] [--shards=16,64] [--clients=1,16]
//   BENCH_MYSQL_PORT=3313 to use another server.
import 'reflect-metadata';
import mysql from 'mysql2/promise';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { ShardedDataSource, Sharded, ShardKey } from 'typeorm-sharding';
import { alternate } from './lib/loop.mjs';
import { MARIADB } from './lib/mariadb.mjs';

const flags = Object.fromEntries(process.argv.slice(2).map((a) => /^--([\w-]+)(?:=(.*))?$/.exec(a)).filter(Boolean).map((m) => [m[1], m[2] ?? true]));
const quick = Boolean(flags.quick);
const SHARDS = String(flags.shards ?? '16,64').split(',').map(Number);
const CLIENTS = String(flags.clients ?? '1,16').split(',').map(Number);
const USERS = quick ? 2_000 : 20_000;
const timing = { reps: quick ? 1 : 3, warmupMs: quick ? 100 : 300, durationMs: quick ? 500 : 1_500, minOps: 20 };

/** Users with a globally unique email (a lookup table). */
class GUser {}
PrimaryColumn('int')(GUser.prototype, 'id');
ShardKey()(GUser.prototype, 'id');
Column({ type: 'varchar', length: 80, unique: true })(GUser.prototype, 'email');
Column({ type: 'varchar', length: 40 })(GUser.prototype, 'name');
Entity('bx_users')(GUser);
Sharded()(GUser);

/** The same users with the email unique per shard only: a read by email scatters. */
class SUser {}
PrimaryColumn('int')(SUser.prototype, 'id');
ShardKey()(SUser.prototype, 'id');
Column({ type: 'varchar', length: 80, unique: true })(SUser.prototype, 'email');
Column({ type: 'varchar', length: 40 })(SUser.prototype, 'name');
Entity('bx_susers')(SUser);
Sharded({ uniquePerShard: ['email'] })(SUser);

const db = (shards, i) => `bench_gx${shards}_${i}`;

async function open(shards, onPhysicalQuery) {
  return new ShardedDataSource({
    type: 'mariadb',
    host: MARIADB.host,
    port: MARIADB.port,
    username: MARIADB.user,
    password: MARIADB.password,
    entities: [GUser, SUser],
    poolSize: 24,
    shards: Array.from({ length: shards }, (_, i) => ({ name: `s${i}`, database: db(shards, i) })),
    sharding: { ...(onPhysicalQuery ? { onPhysicalQuery } : {}) },
  }).initialize();
}

async function prepare(shards) {
  const admin = await mysql.createConnection(MARIADB);
  for (let i = 0; i < shards; i++) {
    await admin.query(`DROP DATABASE IF EXISTS \`${db(shards, i)}\``);
    await admin.query(`CREATE DATABASE \`${db(shards, i)}\``);
  }
  await admin.end();
  const ds = await open(shards);
  await ds.synchronize();
  for (let from = 0; from < USERS; from += 500) {
    const rows = Array.from({ length: Math.min(500, USERS - from) }, (_, k) => ({ id: from + k + 1, email: `user${from + k + 1}@example.com`, name: `u${from + k + 1}` }));
    await ds.getRepository(GUser).insert(rows);
    await ds.getRepository(SUser).insert(rows);
  }
  await ds.destroy();
}

async function drop(shards) {
  const admin = await mysql.createConnection(MARIADB);
  for (let i = 0; i < shards; i++) await admin.query(`DROP DATABASE IF EXISTS \`${db(shards, i)}\``);
  await admin.end();
}

const rowOf = (i) => 1 + ((i * 7919) % USERS);
const variants = (ds) => [
  { key: 'lookup', op: async (i) => { if (!(await ds.getRepository(GUser).findOneBy({ email: `user${rowOf(i)}@example.com` }))) throw new Error('lookup: no row'); } },
  { key: 'scatter', op: async (i) => { if (!(await ds.getRepository(SUser).findOneBy({ email: `user${rowOf(i)}@example.com` }))) throw new Error('scatter: no row'); } },
  { key: 'byId', op: async (i) => { if (!(await ds.getRepository(GUser).findOneBy({ id: rowOf(i) }))) throw new Error('byId: no row'); } },
];

const rows = [];
for (const shards of SHARDS) {
  console.error(`preparing ${shards} shards, ${USERS} users…`);
  await prepare(shards);
  // What one call sends: statements per shard and round trips (a coalesced UNION ALL is one).
  const events = [];
  const probe = await open(shards, (e) => events.push(e));
  const shape = {};
  for (const v of variants(probe)) {
    await v.op(1);
    events.length = 0;
    await v.op(2);
    shape[v.key] = `${events.length} round trip(s), ${events.reduce((n, e) => n + (e.shards?.length ?? 1), 0)} shard statement(s)`;
  }
  await probe.destroy();
  const ds = await open(shards);
  for (const clients of CLIENTS) {
    const result = await alternate(variants(ds), { ...timing, clients });
    for (const v of ['lookup', 'scatter', 'byId']) {
      const r = result[v];
      rows.push({ shards, clients, variant: v, qps: r.qps, p50: r.p50, mean: r.mean, shape: shape[v], error: r.error });
    }
  }
  await ds.destroy();
  await drop(shards);
}

const fmt = (x) => (Number.isFinite(x) ? x.toFixed(2) : String(x));
console.log('| shards | clients | variant | ops/s | p50 ms | mean ms | per call |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.shards} | ${r.clients} | ${r.variant} | ${Math.round(r.qps)} | ${fmt(r.p50)} | ${fmt(r.mean)} | ${r.shape}${r.error ? ` ERROR ${r.error}` : ''} |`);
for (const shards of SHARDS) {
  for (const clients of CLIENTS) {
    const of = (v) => rows.find((r) => r.shards === shards && r.clients === clients && r.variant === v);
    console.log(`${shards} shards, ${clients} clients: lookup/scatter throughput ${fmt(of('lookup').qps / of('scatter').qps)}×, lookup/byId time ${fmt(of('lookup').mean / of('byId').mean)}×`);
  }
}
process.exit(0);

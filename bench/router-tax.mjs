#!/usr/bin/env node
// The router's own cost per read, on one server without replicas: findOneBy from 16 clients
// with and without the router, alternated, Node CPU per call (process.cpuUsage); --raw=1: a raw
// ds.query point read instead (the router's cost per statement, without TypeORM's). For profiling:
//   BENCH_MYSQL_PORT=3717 node --cpu-prof --cpu-prof-dir=/tmp/prof bench/router-tax.mjs --only=router --seconds=10
import 'reflect-metadata';
import mysql from 'mysql2/promise';
import { ShardedDataSource } from 'typeorm-sharding';
import { Order, orderRow } from './lib/entities.mjs';
import { closedLoop } from './lib/loop.mjs';

const flags = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const port = Number(process.env.BENCH_MYSQL_PORT ?? 3306);
const seconds = Number(flags.seconds ?? 3);
const reps = Number(flags.reps ?? 3);
const only = flags.only;
const SHARDS = 4;
const ROWS = 2000;

const options = (router) => ({
  type: 'mariadb',
  entities: [Order],
  servers: [{ name: 'db', host: '127.0.0.1', port, username: 'root', password: '', poolSize: 16 }],
  shards: Array.from({ length: SHARDS }, (_, i) => ({ name: `s${i}`, server: 'db', database: `tax_router_${i}` })),
  sharding: router === undefined ? {} : { router },
});

const admin = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root', multipleStatements: true });
await admin.query(Array.from({ length: SHARDS }, (_, i) => `DROP DATABASE IF EXISTS tax_router_${i}; CREATE DATABASE tax_router_${i};`).join(''));
await admin.end();
const loader = await new ShardedDataSource({ ...options(undefined), synchronize: true }).initialize();
const rows = [];
for (let id = 1; id <= ROWS; id++) {
  const [rid, buyerId, amount, note, createdAt] = orderRow(id);
  rows.push({ id: rid, buyerId, amount, note, createdAt });
}
await loader.getRepository(Order).insert(rows);
await loader.destroy();

const variants = { plain: await new ShardedDataSource(options(undefined)).initialize(), router: await new ShardedDataSource(options({})).initialize() };
const keys = only ? [only] : Object.keys(variants);
let calls = 0;
const acc = Object.fromEntries(keys.map((k) => [k, { ops: 0, s: 0, cpu: 0 }]));
for (let rep = 0; rep < reps; rep++) {
  for (const key of rep % 2 ? [...keys].reverse() : keys) {
    const repo = variants[key].getRepository(Order);
    const r = await closedLoop((i) => (calls++, flags.raw ? variants[key].query('SELECT id, buyerId FROM orders WHERE id = ?', [1 + ((i * 7919) % ROWS)]) : repo.findOneBy({ id: 1 + ((i * 7919) % ROWS) })), { clients: 16, warmupMs: 500, durationMs: seconds * 1000, minOps: 10 });
    if (r.error) throw r.error;
    acc[key].ops += r.ops;
    acc[key].s += r.seconds;
    acc[key].cpu += r.nodeCpu;
  }
}
for (const key of keys) console.log(`${key}: ${(acc[key].ops / acc[key].s).toFixed(0)} qps, ${((acc[key].cpu / acc[key].ops) * 1e6).toFixed(1)} µs Node CPU per call`);
if (keys.length === 2) console.log(`router/plain time per call: ${(acc.plain.ops / acc.plain.s / (acc.router.ops / acc.router.s)).toFixed(3)}×, CPU ${(acc.router.cpu / acc.router.ops / (acc.plain.cpu / acc.plain.ops)).toFixed(3)}×`);
console.log(`calls: ${calls}`);
for (const ds of Object.values(variants)) await ds.destroy();

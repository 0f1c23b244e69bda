#!/usr/bin/env node
// A cross-server transfer (XA) against a local one on the same MariaDB seen as two servers:
// time and Node CPU per transfer, 16 clients, alternated. For profiling:
//   BENCH_MYSQL_PORT=3717 node --cpu-prof --cpu-prof-dir=/tmp/prof bench/xa-tax.mjs --only=xa
import 'reflect-metadata';
import mysql from 'mysql2/promise';
import { ShardedDataSource } from 'typeorm-sharding';
import { XaAccount } from './lib/entities.mjs';
import { closedLoop } from './lib/loop.mjs';

const flags = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const port = Number(process.env.BENCH_MYSQL_PORT ?? 3306);
const seconds = Number(flags.seconds ?? 3);
const reps = Number(flags.reps ?? 3);
const clients = Number(flags.clients ?? 16);
const DBS = ['tax_xa_0', 'tax_xa_1', 'tax_xa_2', 'tax_xa_3'];
const ACCOUNTS = 400;
const admin = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root' });
for (const db of DBS) {
  await admin.query(`DROP DATABASE IF EXISTS ${db}`);
  await admin.query(`CREATE DATABASE ${db}`);
}
const server = { host: '127.0.0.1', port, poolSize: 24 };
const ds = await new ShardedDataSource({ type: 'mariadb', username: 'root', password: '', entities: [XaAccount], servers: [{ name: 'a', ...server }, { name: 'b', ...server }], shards: DBS.map((database, i) => ({ name: `s${i}`, server: i % 2 ? 'b' : 'a', database })), sharding: { transactions: { crossServer: 'atomic' } } }).initialize();
await ds.synchronize();
await ds.getRepository(XaAccount).insert(Array.from({ length: ACCOUNTS }, (_, i) => ({ id: i + 1, balance: 1000 })));
const onA = [];
const onB = [];
for (let id = 1; id <= ACCOUNTS; id++) (['s0', 's2'].includes(ds.shardOf(XaAccount, id)) ? onA : onB).push(id);
const transfer = (i, far) => ds.transaction(async (em) => {
  await em.decrement(XaAccount, { id: onA[(i * 7) % onA.length] }, 'balance', 1);
  await em.increment(XaAccount, { id: far ? onB[(i * 13) % onB.length] : onA[(i * 13 + 1) % onA.length] }, 'balance', 1);
});
let calls = 0;
const retry = (f) => async (i) => {
  calls++;
  for (let n = 0; ; n++) {
    try {
      return await f(i + n * 7919);
    } catch (e) {
      if (n >= 3 || !/deadlock|Lock wait/i.test(String(e))) throw e;
    }
  }
};
const ops = { local: retry((i) => transfer(i, false)), xa: retry((i) => transfer(i, true)) };
const keys = flags.only ? [flags.only] : Object.keys(ops);
const acc = Object.fromEntries(keys.map((k) => [k, { ops: 0, s: 0, cpu: 0 }]));
for (let rep = 0; rep < reps; rep++) {
  for (const key of rep % 2 ? [...keys].reverse() : keys) {
    const r = await closedLoop(ops[key], { clients, warmupMs: 300, durationMs: seconds * 1000, minOps: 10 });
    if (r.error) throw r.error;
    acc[key].ops += r.ops;
    acc[key].s += r.seconds;
    acc[key].cpu += r.nodeCpu;
  }
}
for (const key of keys) console.log(`${key}: ${(acc[key].ops / acc[key].s).toFixed(0)} transfers/s, ${((acc[key].cpu / acc[key].ops) * 1e6).toFixed(0)} µs Node CPU per transfer`);
if (keys.length === 2) console.log(`xa/local time per transfer: ${(acc.local.ops / acc.local.s / (acc.xa.ops / acc.xa.s)).toFixed(2)}×, Node CPU ${(acc.xa.cpu / acc.xa.ops / (acc.local.cpu / acc.local.ops)).toFixed(2)}×`);
if (flags.calls) console.log(`calls: ${calls}`);
await ds.destroy();
await admin.end();

#!/usr/bin/env node
// Runs one benchmark variant alone in a closed loop, for CPU profiling, on the data of an
// earlier `pnpm bench --keep` run:
//   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/profile.mjs --case=find-in --in=8 --clients=16 --seconds=10
//   node bench/profile-summary.mjs /tmp/prof/*.cpuprofile
// cases: find-one (sharded findOneBy), find-one-plain, find-in (sharded, pruned), find-in-plain,
//        find-in-raw (mysql2 hand-routing), find-in-union (raw UNION ALL per server), explain (planner only), sqlite-find-one,
//        sqlite-find-one-plain, sqlite-find-in (--in), sqlite-find-in-hand, sqlite-find-in-plain, deep-page (OFFSET --offset, 16 shards)
import 'reflect-metadata';
import { In } from 'typeorm';
import { closedLoop } from './lib/loop.mjs';
import { Order, Page } from './lib/entities.mjs';
import { MAX_IN, WINDOW, plainMariadb, rawPools, shardedMariadb, sqlitePair } from './lib/setup.mjs';
import { groupByShard, idLists, runWindow } from './lib/util.mjs';
import mysql from 'mysql2/promise';
import { MARIADB } from './lib/mariadb.mjs';
import { rawUnionOf } from './cases/by-hand.mjs';

const flags = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const kase = flags.case ?? 'find-in';
const n = Number(flags.in ?? 8);
const clients = Number(flags.clients ?? 1);
const seconds = Number(flags.seconds ?? 10);
const rows = Number(flags.rows ?? 10_000);
const total = rows * 64;

let op;
const close = [];
if (kase.startsWith('sqlite')) {
  const pair = await sqlitePair({ count: 64, rowsPerShard: 2000 });
  close.push(pair.sharded, pair.plain);
  const repo = (kase.endsWith('plain') ? pair.plain : pair.sharded).getRepository(Order);
  if (kase.startsWith('sqlite-find-in')) {
    const lists = idLists(n, 256, pair.total, 7);
    const algorithm = pair.sharded.shardingRules.ruleOf('orders').shardKey.algorithm;
    const shardRepos = pair.sharded.shardNames.map((name) => pair.sharded.getShardDataSource(name).getRepository(Order));
    op = kase === 'sqlite-find-in-hand'
      ? (i) => runWindow(groupByShard(lists[i % 256], (id) => algorithm.shardIndexOf(id), MAX_IN).map((u) => () => shardRepos[u.shard].find({ where: { id: In(u.values) } })), WINDOW)
      : (i) => repo.find({ where: { id: In(lists[i % 256]) } });
  } else {
    const ids = idLists(1, 4096, pair.total, 1).map((l) => l[0]);
    op = (i) => repo.findOneBy({ id: ids[i % ids.length] });
  }
} else if (kase === 'deep-page') {
  const ds = await shardedMariadb({ count: 16, entities: [Page], poolSize: 2 }).initialize();
  close.push(ds);
  const offset = Number(flags.offset ?? 10_000);
  op = () => ds.getRepository(Page).find({ order: { createdAt: 'DESC', id: 'DESC' }, skip: offset, take: 20 });
} else {
  const sharded = await shardedMariadb({ count: 64, entities: [Order], poolSize: Number(flags.pool ?? 16) }).initialize();
  const plain = await plainMariadb({ entities: [Order], poolSize: 16 }).initialize();
  close.push(sharded, plain);
  const lists = idLists(kase.startsWith('find-one') ? 1 : n, 256, total, 7);
  const algorithm = sharded.shardingRules.ruleOf('orders').shardKey.algorithm;
  const pools = rawPools(64, 2);
  const serverPool = mysql.createPool({ ...MARIADB, connectionLimit: 16 });
  close.push({ destroy: () => serverPool.end() });
  close.push({ destroy: () => Promise.all(pools.map((p) => p.end())) });
  const sql = (ids) => sharded.createQueryBuilder(Order, 'Order').setFindOptions({ where: { id: In(ids) } }).getQueryAndParameters();
  const explained = lists.map(sql);
  op = {
    'find-one': (i) => sharded.getRepository(Order).findOneBy({ id: lists[i % 256][0] }),
    'find-one-plain': (i) => plain.getRepository(Order).findOneBy({ id: lists[i % 256][0] }),
    'find-in': (i) => sharded.getRepository(Order).find({ where: { id: In(lists[i % 256]) } }),
    'find-in-plain': (i) => plain.getRepository(Order).find({ where: { id: In(lists[i % 256]) } }),
    'find-in-raw': (i) =>
      runWindow(groupByShard(lists[i % 256], (id) => algorithm.shardIndexOf(id), MAX_IN).map((u) => () => pools[u.shard].query('SELECT `id`, `buyerId`, `amount`, `note`, `createdAt` FROM `orders` WHERE `id` IN (?)', [u.values])), WINDOW),
    'find-in-union': (i) => {
      const units = groupByShard(lists[i % 256], (id) => algorithm.shardIndexOf(id), MAX_IN);
      const { sql: texts, values } = rawUnionOf(units);
      return runWindow(texts.map((text, b) => () => serverPool.query(text, values[b]).then((r) => r[0])), WINDOW);
    },
    explain: async (i) => {
      for (let k = 0; k < 100; k++) sharded.explain(...explained[(i * 100 + k) % 256]);
    },
  }[kase];
}
if (!op) throw new Error(`unknown case ${kase}`);
const r = await closedLoop(op, { clients, warmupMs: 500, durationMs: seconds * 1000, maxMs: seconds * 1000 });
if (r.error) throw r.error;
console.log(`${kase} in=${n} clients=${clients}: ${(r.ops / r.seconds).toFixed(0)} ops/s over ${r.seconds.toFixed(1)} s; CPU per op: Node ${((r.nodeCpu / r.ops) * 1e6).toFixed(0)} µs, server ${((r.serverCpu / r.ops) * 1e6).toFixed(0)} µs`);
for (const c of close) await c.destroy();

/**
 * typeorm-sharding router demo (`pnpm demo:router`): the PolarDB query router article on one
 * server with a primary and a read replica. Starts both as local `mariadbd` processes (the
 * workspace's mariadb-cluster helper), or uses yours: set PRIMARY_PORT and REPLICA_PORT (and
 * PRIMARY_HOST, REPLICA_HOST, DB_USER, DB_PASSWORD) to a primary and a replica that replicates
 * from it. The configuration is router.yaml, shaped like the article's; the demo prints where
 * each statement ran and the router's metrics.
 */
import 'reflect-metadata';
import { fileURLToPath } from 'node:url';
import mysql from 'mysql2/promise';
import { canStartMariadb, startCluster, type MariadbCluster } from 'mariadb-cluster';
import { In } from 'typeorm';
import { ShardedDataSource, type PhysicalQueryEvent } from 'typeorm-sharding';
import { Buyer, Order } from './entities.js';

const CONFIG = fileURLToPath(new URL('../router.yaml', import.meta.url));
const SHARDS = 4;

let log: PhysicalQueryEvent[] = [];
function show(title: string): void {
  console.log(`\n  ${title}`);
  for (const e of log) {
    const where = `${e.node} (${e.role}, ${e.reason}${e.fallback ? `, ${e.fallback}` : ''}${e.hints?.length ? `, hints ${e.hints.join(' ')}` : ''})`;
    console.log(`    → ${where.padEnd(58)} ${e.sql.length > 90 ? `${e.sql.slice(0, 87)}…` : e.sql}`);
  }
  log = [];
}

/** The primary and replica to use: yours (PRIMARY_PORT, REPLICA_PORT), or started here. */
async function servers(): Promise<{ env: Record<string, string | undefined>; cluster?: MariadbCluster }> {
  if (process.env.PRIMARY_PORT && process.env.REPLICA_PORT) return { env: process.env };
  if (!canStartMariadb()) {
    console.error('mariadbd and mariadb-install-db are not installed here: start a primary and a replica that replicates from it, then run\n  PRIMARY_PORT=… REPLICA_PORT=… [PRIMARY_HOST=… REPLICA_HOST=… DB_USER=… DB_PASSWORD=…] pnpm demo:router');
    process.exit(1);
  }
  console.log('starting a primary and one replica (mariadbd processes with GTID replication) …');
  const cluster = await startCluster(1);
  return { env: { ...process.env, PRIMARY_PORT: String(cluster.primary.port), REPLICA_PORT: String(cluster.replicas[0]!.port), DB_PASSWORD: '' }, cluster };
}

async function prepare(env: Record<string, string | undefined>): Promise<void> {
  const c = await mysql.createConnection({ host: env.PRIMARY_HOST ?? '127.0.0.1', port: Number(env.PRIMARY_PORT), user: env.DB_USER ?? 'root', password: env.DB_PASSWORD ?? '' });
  try {
    for (let i = 0; i < SHARDS; i++) {
      await c.query(`DROP DATABASE IF EXISTS demo_router_${i}`);
      await c.query(`CREATE DATABASE demo_router_${i}`);
    }
  } finally {
    await c.end();
  }
}

async function main(): Promise<void> {
  const { env, cluster } = await servers();
  try {
    await prepare(env);
    console.log(`typeorm-sharding router demo: primary :${env.PRIMARY_PORT}, replica :${env.REPLICA_PORT}; configuration ${CONFIG}`);
    const ds = await ShardedDataSource.fromYaml(CONFIG, { type: 'mariadb', entities: [Buyer, Order], synchronize: true, logging: ['warn'], env, sharding: { onPhysicalQuery: (e) => log.push(e) } });
    await ds.initialize();
    try {
      await run(ds);
    } finally {
      await ds.destroy();
    }
  } finally {
    await cluster?.stop();
  }
}

async function run(ds: ShardedDataSource): Promise<void> {
  const orders = ds.getRepository(Order);
  log = [];

  console.log('\n1. Writes, DDL and transactions run on the primary');
  await ds.getRepository(Buyer).insert({ id: 1, name: 'A' });
  await orders.insert(['1', '2', '4', '5', '9'].map((id, i) => ({ id, buyerId: 1, item: `item ${id}`, createdAt: new Date(Date.UTC(2024, 0, 1 + i)) })));
  await ds.transaction((em) => em.update(Order, { id: '5' }, { item: 'item 5 (gift)' }));
  show('insert() of a buyer, of five orders (one statement per shard they fall on), an update in a transaction');

  console.log('\n2. Reads outside transactions go to the replica, once it has the rows');
  await ds.withRouting({ consistentRead: true }, () => orders.findOneBy({ id: '9' }));
  show('CONSISTENT_READ (withRouting): the first read waits for the writes on the replica (GTID), or reads the primary');
  await orders.findOneBy({ id: '1' });
  await orders.find({ where: { id: In(['1', '2', '4', '5', '9']) }, order: { createdAt: 'DESC' } });
  await orders.count();
  show('findOneBy, find(In(ids)) over the shards, count()');

  console.log('\n3. Hints, as SQL comments (TypeORM `comment`, QueryBuilder .comment()) or as a withRouting scope');
  await orders.find({ where: { id: '2' }, comment: 'FORCE_MASTER' });
  await ds.query('SELECT COUNT(*) AS n FROM `buyers`');
  await ds.query('/*+ FORCE_SLAVE */ SELECT COUNT(*) AS n FROM `buyers`');
  for (let i = 0; i < 3; i++) await orders.find({ where: { buyerId: 1 }, comment: 'ROUTE_STICKY' });
  await ds.withRouting({ masterOnly: true }, () => ds.transaction((em) => em.findOneBy(Order, { id: '4' })));
  await orders.find({ where: { id: '1' }, comment: 'FORCE_MASTR' });
  show('FORCE_MASTER; raw query() (a master QueryRunner, as in TypeORM) and FORCE_SLAVE; ROUTE_STICKY ×3; MASTER_ONLY; a misspelt hint (warned)');

  console.log('\n4. The router: nodes and metrics');
  await ds.router.checkLagNow();
  for (const n of ds.router.snapshot()) {
    console.log(`    ${n.node.padEnd(16)} ${n.role.padEnd(8)} ${n.up ? 'up  ' : 'down'}  lag ${n.lagMs === undefined ? '—' : `${n.lagMs} ms`}  share ${n.share}  routed ${n.routed}`);
  }
  const text = await ds.routerMetrics.registry.metrics();
  const wanted = /^typeorm_sharding_router_(requests_total|misroutes_total|decision_time_ms_(count|sum)|consistent_reads_total|hint_problems_total|route_cache_(hits|misses)_total|plan_cache_(hits|misses)_total)\b/;
  for (const line of text.split('\n')) if (wanted.test(line)) console.log(`    ${line}`);
  const misroutes = (await ds.routerMetrics.registry.getMetricsAsJSON()).find((m) => m.name === 'typeorm_sharding_router_misroutes_total');
  console.log(`    typeorm_sharding_router_misroutes_total ${(misroutes?.values ?? []).reduce((n, v) => n + v.value, 0)}   (writes that reached a replica: must stay 0)`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

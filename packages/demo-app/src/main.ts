/**
 * typeorm-sharding demo: the e-commerce case of the PolarDB-X article, the paging bug of the
 * Atlas post-mortem, and an order placed in one transaction across servers, on 4 shards. Runs on
 * embedded SQLite files by default; set DEMO_DB=mariadb (and DEMO_MYSQL_HOST/PORT/USER/PASSWORD)
 * to use MariaDB databases demo_shard_0..3 instead, on two servers: DEMO_MYSQL_HOST2 /
 * DEMO_MYSQL_PORT2 name the second (by default the first one again, reached as a second server).
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { In } from 'typeorm';
import { ShardedDataSource, type PhysicalQueryEvent, type ShardedDataSourceOptions } from 'typeorm-sharding';
import { Buyer, ModOrder, Order, PostReply, ShopOrder, ShopOrderItem, Stock } from './entities.js';
import { OutOfStockError, orderLog, placeOrder } from './place-order.js';
import { prepareMariaDb } from './mariadb.js';

const SHARDS = 4;
const useMariaDb = process.env.DEMO_DB === 'mariadb';
const dir = useMariaDb ? '' : mkdtempSync(join(tmpdir(), 'typeorm-sharding-demo-'));

let log: PhysicalQueryEvent[] = [];
const printStatements = (title: string) => {
  console.log(`\n  ${title}: ${log.length} physical statement(s)`);
  for (const e of log) console.log(`    [${e.shard}] ${e.sql}${e.parameters.length ? `  -- params ${JSON.stringify(e.parameters)}` : ''}  → ${e.rowCount} row(s)`);
  log = [];
};

function options(sharding: ShardedDataSourceOptions['sharding'], synchronize: boolean): ShardedDataSourceOptions {
  const shardNames = Array.from({ length: SHARDS }, (_, i) => `shard_${i}`);
  const common = { entities: [Buyer, Order, ModOrder, PostReply], synchronize, sharding: { ...sharding, onPhysicalQuery: (e: PhysicalQueryEvent) => log.push(e) } };
  if (!useMariaDb) {
    return { type: 'better-sqlite3', ...common, shards: shardNames.map((name) => ({ name, database: join(dir, `${name}.db`) })) };
  }
  return {
    type: 'mariadb',
    host: process.env.DEMO_MYSQL_HOST ?? '127.0.0.1',
    port: Number(process.env.DEMO_MYSQL_PORT ?? 3306),
    username: process.env.DEMO_MYSQL_USER ?? 'root',
    password: process.env.DEMO_MYSQL_PASSWORD ?? '',
    ...common,
    shards: shardNames.map((name, i) => ({ name, database: `demo_shard_${i}` })),
  };
}

async function main(): Promise<void> {
  console.log(`typeorm-sharding demo on ${useMariaDb ? 'MariaDB' : `SQLite files in ${dir}`} with ${SHARDS} shards`);
  if (useMariaDb) await prepareMariaDb(SHARDS);

  const ds = await new ShardedDataSource(options({ concurrency: 2 }, true)).initialize();
  try {
    console.log('\n1. Buyer A places orders 1, 2, 4, 5, 9 (orders hash-sharded by order id)');
    await ds.getRepository(Buyer).save({ id: 1, name: 'A' });
    const ids = ['1', '2', '4', '5', '9'];
    await ds.getRepository(Order).save(ids.map((id, i) => ({ id, buyerId: 1, item: `item ${id}`, createdAt: new Date(Date.UTC(2024, 0, 1 + i)) })));
    await ds.getRepository(ModOrder).save(ids.map((id) => ({ id, buyerId: 1 })));
    printStatements('save() of the buyer and the orders');
    for (const id of ids) console.log(`    order ${id} lives on ${ds.shardOf(Order, id)} (hash); with mod it lives on ${ds.shardOf(ModOrder, id)}`);

    console.log('\n2. The logical SQL of the article: select * from order where order_id in (1, 2, 4, 5, 9)');
    const found = await ds.getRepository(ModOrder).find({ where: { id: In(ids) } });
    printStatements(`pruning on (mod): ${found.length} orders found`);
  } finally {
    await ds.destroy();
  }

  const naive = await new ShardedDataSource(options({ pruning: false }, false)).initialize();
  try {
    const found = await naive.getRepository(ModOrder).find({ where: { id: In(['1', '2', '4', '5', '9']) } });
    printStatements(`pruning off (the naive broadcast): ${found.length} orders found`);
  } finally {
    await naive.destroy();
  }

  const batched = await new ShardedDataSource(options({ maxInValuesPerQuery: 2, concurrency: 2 }, false)).initialize();
  try {
    const found = await batched.getRepository(ModOrder).find({ where: { id: In(['1', '2', '4', '5', '9']) } });
    printStatements(`maxInValuesPerQuery 2, window of 2 (the article's 4 statements in 2 rounds): ${found.length} orders found`);

    console.log('\n3. The Atlas post-mortem: a user\'s replies across threads, newest first, page 2 (LIMIT 20, 20)');
    const tids = [228596, 225232, 228689, 228601, 228638, 209218, 224795, 228839];
    const replies: PostReply[] = [];
    for (let i = 0; i < 56; i++) {
      replies.push(Object.assign(new PostReply(), { id: i + 1, tid: tids[i % tids.length]!, userId: 123, createTime: new Date(Date.UTC(2024, 0, 1, 0, i)) }));
    }
    await batched.getRepository(PostReply).save(replies, { chunk: 100 });
    log = [];
    for (let page = 0; page < 3; page++) {
      const rows = await batched.getRepository(PostReply).find({
        where: { userId: 123, tid: In(tids) },
        order: { createTime: 'DESC' },
        skip: page * 20,
        take: 20,
      });
      printStatements(`page ${page + 1}: ${rows.length} replies, ids ${rows.map((r) => r.id).join(', ')}`);
    }
  } finally {
    await batched.destroy();
  }
  await orderAcrossServers();
  if (dir) rmSync(dir, { recursive: true, force: true });
  console.log('\nDone.');
}

/** The shop's tables on the 4 shards, which on MariaDB live on two servers (shards 0, 2 and 1, 3). */
function shopOptions(log: ReturnType<typeof orderLog>): ShardedDataSourceOptions {
  const sharding = { onPhysicalQuery: log.physical, transactions: { onStep: log.step } };
  const entities = [ShopOrder, ShopOrderItem, Stock];
  const shardNames = Array.from({ length: SHARDS }, (_, i) => `shard_${i}`);
  if (!useMariaDb) return { type: 'better-sqlite3', entities, synchronize: true, sharding, shards: shardNames.map((name) => ({ name, database: join(dir, `${name}.db`) })) };
  const host = process.env.DEMO_MYSQL_HOST ?? '127.0.0.1';
  const port = Number(process.env.DEMO_MYSQL_PORT ?? 3306);
  return {
    type: 'mariadb',
    username: process.env.DEMO_MYSQL_USER ?? 'root',
    password: process.env.DEMO_MYSQL_PASSWORD ?? '',
    entities,
    synchronize: true,
    sharding,
    servers: [
      { name: 'db1', host, port },
      { name: 'db2', host: process.env.DEMO_MYSQL_HOST2 ?? host, port: Number(process.env.DEMO_MYSQL_PORT2 ?? port) },
    ],
    shards: shardNames.map((name, i) => ({ name, server: i % 2 ? 'db2' : 'db1', database: `demo_shard_${i}` })),
  };
}

async function orderAcrossServers(): Promise<void> {
  console.log(
    useMariaDb
      ? '\n4. An order in one transaction across two servers (shards 0, 2 on db1; 1, 3 on db2): XA two-phase commit'
      : '\n4. An order in one transaction across shard files: SQLite attaches the other files to the first shard\'s connection and commits once',
  );
  const log = orderLog();
  const ds = await new ShardedDataSource(shopOptions(log)).initialize();
  try {
    await ds.getRepository(Stock).save([{ sku: 'lamp', quantity: 3 }, { sku: 'desk', quantity: 1 }]);
    log.print('stock, a broadcast table, written to every shard in one transaction');
    const id = '1001';
    console.log(`    order ${id} and its items live on ${ds.shardOf(ShopOrder, id)}; the stock on every shard`);
    await placeOrder(ds, id, { lamp: 2, desk: 1 });
    log.print(`order ${id} (2 lamps, 1 desk) placed:`);
    if (!useMariaDb) console.log(`    the transaction began on ${ds.shardOf(ShopOrder, id)}: the other files were attached to its connection (their statements name the attached schema) and one COMMIT made all four durable together`);
    const refused = await placeOrder(ds, '1002', { lamp: 2 }).then(() => undefined, (e: unknown) => e);
    log.print(`order 1002 (2 lamps) refused, ${refused instanceof OutOfStockError ? refused.message : String(refused)}: rolled back everywhere`);
    const copies = await Promise.all(ds.shardNames.map(async (name) => `${name}: ${(await ds.getShardDataSource(name).query('SELECT sku, quantity FROM shop_stock ORDER BY sku')).map((r: { sku: string; quantity: number }) => `${r.sku} ${r.quantity}`).join(', ')}`));
    console.log(`    orders: ${(await ds.getRepository(ShopOrder).find()).map((o) => o.id).join(', ')}; items: ${await ds.getRepository(ShopOrderItem).count()}; stock copies — ${copies.join(' | ')}`);
  } finally {
    await ds.destroy();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});

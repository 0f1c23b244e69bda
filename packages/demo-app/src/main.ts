/**
 * typeorm-sharding demo: the e-commerce case of the PolarDB-X article and the paging bug of
 * the Atlas post-mortem, on 4 shards. Runs on embedded SQLite files by default; set
 * DEMO_DB=mariadb (and DEMO_MYSQL_HOST/PORT/USER/PASSWORD) to use MariaDB databases
 * demo_shard_0..3 instead.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { In } from 'typeorm';
import { ShardedDataSource, type PhysicalQueryEvent, type ShardedDataSourceOptions } from 'typeorm-sharding';
import { Buyer, ModOrder, Order, PostReply } from './entities.js';
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
  if (dir) rmSync(dir, { recursive: true, force: true });
  console.log('\nDone.');
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});

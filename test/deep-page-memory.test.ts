import 'reflect-metadata';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShardedDataSource } from '../packages/typeorm-sharding/src/index.js';
import { ENTITIES, Order } from './support/entities.js';
import { openFixture, type Fixture } from './support/backends.js';
import { MARIADB, mariadbAvailable } from './support/mariadb.js';

const gc = (globalThis as { gc?: () => void }).gc;

/** Highest heap still in use after a full collection while `run` is in flight (sampled every 20 ms). */
async function peakRetainedHeap(run: () => Promise<unknown>): Promise<number> {
  // vitest.config.ts starts integration workers with --expose-gc.
  if (!gc) throw new Error('run with node --expose-gc (see vitest.config.ts)');
  gc();
  const base = process.memoryUsage().heapUsed;
  let peak = 0;
  const timer = setInterval(() => {
    gc!();
    peak = Math.max(peak, process.memoryUsage().heapUsed - base);
  }, 20);
  try {
    await run();
  } finally {
    clearInterval(timer);
  }
  return peak;
}

const ROWS_PER_SHARD = 52_000;

/**
 * OFFSET 50,000 over 8 shards: every shard must send its first 50,020 rows (400,160 in all).
 * Streamed into the merge they pass through a few at a time; buffered, all would be held at
 * once. The same query on the same shards with streaming switched off is the yardstick.
 */
describe.runIf(await mariadbAvailable())('deep page memory on MariaDB (OFFSET 50,000 over 8 shards)', () => {
  let fx: Fixture;
  let buffered: ShardedDataSource;
  let windowed: ShardedDataSource;
  const databases: string[] = [];
  beforeAll(async () => {
    // The plain way (every shard from row 0, streamed), against the same shards buffered and windowed.
    fx = await openFixture('mariadb', ENTITIES, 8, { coalesce: false, pageWindows: false });
    for (const name of fx.sharded.shardNames) databases.push((fx.sharded.getShardDataSource(name).options as { database: string }).database);
    // Loaded in the server from MariaDB's sequence engine (fast). The rows are not placed by
    // their key's hash — irrelevant here: the query reads every shard in full order.
    const c = await mysql.createConnection(MARIADB);
    try {
      for (const [i, db] of databases.entries()) {
        await c.query(
          `INSERT INTO \`${db}\`.orders (id, buyerId, note, amount, createdAt)
           SELECT seq * 8 + ${i}, seq % 10, CONCAT('note ', seq % 97), (seq * 7919 + ${i}) % 1000003, '2024-01-01' + INTERVAL seq SECOND
           FROM \`${db}\`.seq_1_to_${ROWS_PER_SHARD}`,
        );
      }
    } finally {
      await c.end();
    }
    buffered = await new ShardedDataSource({
      type: 'mariadb',
      host: MARIADB.host,
      port: MARIADB.port,
      username: MARIADB.user,
      password: '',
      entities: ENTITIES,
      shards: fx.sharded.shardNames.map((name, i) => ({ name, database: databases[i] })),
      sharding: { streamThreshold: 10_000_000, coalesce: false, pageWindows: false },
    }).initialize();
    windowed = await new ShardedDataSource({
      type: 'mariadb',
      host: MARIADB.host,
      port: MARIADB.port,
      username: MARIADB.user,
      password: '',
      entities: ENTITIES,
      shards: fx.sharded.shardNames.map((name, i) => ({ name, database: databases[i] })),
    }).initialize();
  }, 180_000);
  afterAll(async () => {
    await buffered?.destroy();
    await windowed?.destroy();
    await fx?.close();
  });

  it('holds shards × a small buffer, not shards × (offset + count) rows', async () => {
    const page = { order: { amount: 'ASC' as const, id: 'ASC' as const }, skip: 50_000, take: 20 };
    let streamedPage: Order[] = [];
    let bufferedPage: Order[] = [];
    const held = await peakRetainedHeap(async () => (bufferedPage = await buffered.getRepository(Order).find(page)));
    const streamed = await peakRetainedHeap(async () => (streamedPage = await fx.sharded.getRepository(Order).find(page)));
    expect(streamedPage).toHaveLength(20);
    expect(streamedPage.map((o) => o.id)).toEqual(bufferedPage.map((o) => o.id));
    // Buffered: ~400,000 rows held at once (well over 50 MiB). Streamed: a few MiB at most.
    expect(held).toBeGreaterThan(50 * 2 ** 20);
    expect(streamed).toBeLessThan(held / 5);
    console.log(`deep page retained heap: streamed ${(streamed / 2 ** 20).toFixed(1)} MiB, buffered ${(held / 2 ** 20).toFixed(1)} MiB`);
  });

  it('reads the same page by windows, holding shards × (2·√offset + count) rows', async () => {
    const page = { order: { amount: 'ASC' as const, id: 'ASC' as const }, skip: 50_000, take: 20 };
    const plainPage = await fx.sharded.getRepository(Order).find(page);
    let windowedPage: Order[] = [];
    const rows: number[] = [];
    const held = await peakRetainedHeap(async () => (windowedPage = await windowed.getRepository(Order).find(page)));
    expect(windowedPage.map((o) => o.id)).toEqual(plainPage.map((o) => o.id));
    // Each shard sent its window: about 6,250 ± 448 rows, not 50,020 (9,000 rows of ~200 bytes in all: a few MiB).
    const statements = windowed.explain(...windowed.getRepository(Order).createQueryBuilder('Order').setFindOptions(page).getQueryAndParameters());
    for (const s of statements) rows.push(Number(/LIMIT (\d+)/.exec(s.sql)![1]));
    expect(rows).toHaveLength(8);
    for (const n of rows) expect(n).toBeLessThan(1000);
    expect(held).toBeLessThan(20 * 2 ** 20);
    console.log(`deep page retained heap: windowed ${(held / 2 ** 20).toFixed(1)} MiB`);
  });
});

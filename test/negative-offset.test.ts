import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { ENTITIES, Order } from './support/entities.js';
import { openFixture, type Backend, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';

// Issue 14: a negative OFFSET (`find({ skip: -5 })`, raw `OFFSET -3`) raised `[BUG] invalid
// merge spec`. One database: SQLite reads a negative OFFSET as 0 (and a negative LIMIT as no
// limit); MariaDB rejects the syntax. The sharded source must answer or fail alike.

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];

describe.each(backends)('a negative OFFSET on %s: as on one database', (backend) => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await openFixture(backend, ENTITIES, 4);
    const rows = Array.from({ length: 40 }, (_, i) => ({ id: String(i + 1), buyerId: i % 5, note: null, amount: i, createdAt: new Date(Date.UTC(2024, 0, 1 + i)) }));
    for (const ds of [fx.plain, fx.sharded]) await ds.getRepository(Order).insert(rows);
  });
  afterAll(async () => fx?.close());

  /** Rows, or the error's class and the database's message (a shard's error names the shard after it). */
  const outcome = (run: (ds: DataSource) => Promise<unknown>) => async (ds: DataSource) =>
    run(ds).then(
      (rows) => ({ rows: (rows as { id: string }[]).map((r) => String(r.id)) }),
      (e: Error) => ({ error: e instanceof Error && e.constructor.name === 'ShardQueryError' ? 'QueryFailedError' : e.constructor.name, message: e.message.replace(/ \(on shard \w+\)$/, '') }),
    );

  it.each([
    ['find({ skip: -5, take: 3 })', (ds: DataSource) => ds.getRepository(Order).find({ order: { amount: 'DESC' }, skip: -5, take: 3 })],
    ['find({ skip: -5 })', (ds: DataSource) => ds.getRepository(Order).find({ order: { amount: 'DESC' }, skip: -5 })],
    ['raw LIMIT 4 OFFSET -3', (ds: DataSource) => ds.query('SELECT id FROM orders ORDER BY amount LIMIT 4 OFFSET -3')],
    ['raw LIMIT -1 OFFSET -3', (ds: DataSource) => ds.query('SELECT id FROM orders ORDER BY amount LIMIT -1 OFFSET -3')],
    ['raw LIMIT 2 OFFSET -3 with an aggregate', (ds: DataSource) => ds.query('SELECT buyerId AS id, COUNT(*) AS n FROM orders GROUP BY buyerId ORDER BY buyerId LIMIT 2 OFFSET -3')],
  ])('%s', async (_label, run) => {
    const plain = await outcome(run)(fx.plain);
    const sharded = await outcome(run)(fx.sharded);
    expect(sharded).toEqual(plain);
  });
});

import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryFailedError, type DataSource } from 'typeorm';
import { UnreadableStatementError } from '../packages/typeorm-sharding/src/index.js';
import { ENTITIES, Order } from './support/entities.js';
import { openFixture, type Backend, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';

// Issue 8, item 15: a typo is the database's syntax error (as on one database), not a
// "sharding limitation"; `ORDER BY 2, 1` and SQLite's `NULLS FIRST` are answered; a valid
// statement the planner cannot read says so and names what to do.

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];
const NOTES = ['b', null, 'a', 'C', null, 'a'];

describe.each(backends)('statement errors and everyday spellings (%s)', (backend) => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await openFixture(backend, ENTITIES, 4);
    const orders = Array.from({ length: 24 }, (_, i) => ({ id: String(i + 1), buyerId: i % 4, note: NOTES[i % NOTES.length]!, amount: (i * 7) % 5, createdAt: new Date(Date.UTC(2024, 0, 1 + i)) }));
    for (const ds of [fx.sharded, fx.plain]) await ds.getRepository(Order).insert(orders);
  });
  afterAll(async () => fx?.close());

  const failureOf = async (ds: DataSource, sql: string): Promise<unknown> => ds.query(sql).then(() => undefined, (e: unknown) => e);

  it.each([
    ['a misspelt verb', 'SELEC id FROM orders'],
    ['a misspelt keyword', 'SELECT id FORM orders WHERE id IN (1, 2)'],
  ])('%s fails with the database\'s own error, as on one database', async (_label, sql) => {
    const plain = await failureOf(fx.plain, sql);
    const sharded = await failureOf(fx.sharded, sql);
    expect(plain).toBeInstanceOf(QueryFailedError);
    expect(sharded).toBeInstanceOf(QueryFailedError);
    expect((sharded as { code?: string }).code).toBe((plain as { code?: string }).code);
    expect((sharded as Error).message).toContain((plain as QueryFailedError).driverError.message);
  });

  it('a join with a table that is no entity names it as such', async () => {
    await expect(fx.sharded.query('SELECT o.id FROM orders o JOIN no_such_table t ON t.id = o.id')).rejects.toThrow(/"no_such_table", which is no entity/);
  });

  it('a statement the database accepts but the planner cannot read is refused with UnreadableStatementError naming the way out', async () => {
    const sql = backend === 'mariadb' ? "SELECT id FROM orders WHERE note SOUNDS LIKE 'a'" : "SELECT id FROM orders WHERE note GLOB 'a*'";
    await expect(fx.plain.query(sql)).resolves.toBeDefined();
    const error = await failureOf(fx.sharded, sql);
    expect(error).toBeInstanceOf(UnreadableStatementError);
    expect((error as Error).message).toMatch(/getShardDataSource/);
  });

  it('a statement the planner cannot read but whose shard-key condition picks one shard runs there, as on one database', async () => {
    const sql = backend === 'mariadb' ? "SELECT id, note FROM orders WHERE id = 3 AND note SOUNDS LIKE note ORDER BY id" : "SELECT id, note FROM orders WHERE id = 3 AND note GLOB '*'";
    const expected = await fx.plain.query(sql);
    expect(expected).toHaveLength(1);
    fx.physical.length = 0;
    expect(await fx.sharded.query(sql)).toEqual(expected);
    expect(fx.physical.map((e) => e.shard)).toEqual([fx.sharded.shardOf('Order', 3)]);
  });

  it('ORDER BY positions', async () => {
    const sql = 'SELECT amount, id FROM orders WHERE id IN (1, 2, 3, 5, 8, 13, 21) ORDER BY 1 DESC, 2';
    expect(await fx.sharded.query(sql)).toEqual(await fx.plain.query(sql));
  });

  it.runIf(backend === 'sqlite')('NULLS FIRST / NULLS LAST, raw and through find()', async () => {
    for (const sql of [
      'SELECT id, note FROM orders ORDER BY note DESC NULLS FIRST, id',
      'SELECT id, note FROM orders ORDER BY note ASC NULLS LAST, id DESC LIMIT 9 OFFSET 2',
    ]) {
      expect(await fx.sharded.query(sql), sql).toEqual(await fx.plain.query(sql));
    }
    const find = (ds: DataSource) => ds.getRepository(Order).find({ order: { note: { direction: 'DESC', nulls: 'FIRST' }, id: 'ASC' }, take: 10 });
    expect((await find(fx.sharded)).map((o) => [String(o.id), o.note])).toEqual((await find(fx.plain)).map((o) => [String(o.id), o.note]));
  });
});

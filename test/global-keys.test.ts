import 'reflect-metadata';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Column,
  Entity,
  EventSubscriber,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  type DataSource,
  type EntitySubscriberInterface,
  type InsertEvent,
  type ObjectLiteral,
} from 'typeorm';
import {
  MissingShardKeyError,
  ShardingConfigError,
  Snowflake,
  decodeSnowflake,
} from '../packages/typeorm-sharding/src/index.js';
import { openFixture, type Backend, type Fixture } from './support/backends.js';
import { GLOBAL_KEY_ENTITIES, GkCart, GkLine, GkNote, GkOrder, GkTicket } from './support/global-key-entities.js';
import { mariadbAvailable } from './support/mariadb.js';

// Issue 11, item 5: entities inserted without an id get a Snowflake id before the INSERT is
// routed; TypeORM reports it exactly as an id the caller had set, which the oracle checks by
// inserting the same rows with explicit ids on one plain DataSource.

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];
const WORKER = 7;

/**
 * A table's rows as text, sorted by id in JavaScript. On SQLite, better-sqlite3 reads integers
 * beyond 2^53 as rounded numbers (TypeORM then folds entities whose rounded ids are equal, on one
 * plain DataSource too), so ids are compared as the database holds them.
 */
async function rowsOf(ds: DataSource, table: string): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = await ds.query(`SELECT CAST(id AS CHAR) AS sid, t.* FROM ${table} t`);
  return rows.map(({ id: _id, ...rest }) => rest).sort((a, b) => (BigInt(a.sid as string) < BigInt(b.sid as string) ? -1 : 1));
}

/** Shards that received an INSERT (physical statements since the last reset). */
const insertShards = (fx: Fixture): string[] => [...new Set(fx.physical.filter((e) => /^INSERT/i.test(e.sql)).map((e) => e.shard))].sort();

describe.each(backends)('@Snowflake() keys on %s', (backend) => {
  let fx: Fixture | undefined;
  afterEach(async () => {
    await fx?.close();
    fx = undefined;
  });
  const open = async () => (fx = await openFixture(backend, GLOBAL_KEY_ENTITIES, 4, { keyGenerator: { workerId: WORKER } }));

  it('insert() without an id: the id is generated, routed by, and reported as a caller-set id would be', async () => {
    const { sharded, plain, physical } = await open();
    const order = Object.assign(new GkOrder(), { title: 'first' });
    const result = await sharded.getRepository(GkOrder).insert(order);

    expect(typeof order.id).toBe('string');
    expect(decodeSnowflake(order.id)).toMatchObject({ workerId: WORKER });
    expect(insertShards(fx!)).toEqual([sharded.shardOf(GkOrder, order.id)]);
    expect(physical.some((e) => e.parameters.includes(order.id) || e.sql.includes(order.id))).toBe(true);

    const same = Object.assign(new GkOrder(), { id: order.id, title: 'first' });
    const expected = await plain.getRepository(GkOrder).insert(same);
    expect(result.identifiers).toEqual(expected.identifiers);
    expect(result.generatedMaps).toEqual(expected.generatedMaps);
    expect(order).toEqual(same);
    expect(await sharded.getRepository(GkOrder).findOneBy({ id: order.id })).toEqual(await plain.getRepository(GkOrder).findOneBy({ id: order.id }));
  });

  it('save() of new entities: distinct ids, each row on the shard of its id, found again by it', async () => {
    const { sharded, plain } = await open();
    const orders = Array.from({ length: 40 }, (_, i) => Object.assign(new GkOrder(), { title: `o${i}` }));
    const saved = await sharded.getRepository(GkOrder).save(orders);
    expect(saved).toBe(orders);
    const ids = orders.map((o) => o.id);
    expect(new Set(ids).size).toBe(40);
    expect(ids.every((id) => typeof id === 'string' && /^\d+$/.test(id))).toBe(true);
    for (let i = 1; i < ids.length; i++) expect(BigInt(ids[i]!) > BigInt(ids[i - 1]!)).toBe(true);
    // Each id's own shard holds its row, and the ids do not all end on one residue (vibration).
    for (const order of orders) {
      const home = sharded.getShardDataSource(sharded.shardOf(GkOrder, order.id));
      expect(await home.getRepository(GkOrder).countBy({ id: order.id }), order.id).toBe(1);
    }
    expect(insertShards(fx!).length).toBeGreaterThan(1);

    const copies = await plain.getRepository(GkOrder).save(orders.map((o) => Object.assign(new GkOrder(), { id: o.id, title: o.title })));
    expect(orders).toEqual(copies);
    expect(await rowsOf(sharded, 'gk_orders')).toEqual(await rowsOf(plain, 'gk_orders'));
    if (backend === 'mariadb') {
      const order = { id: 'ASC' } as const;
      expect(await sharded.getRepository(GkOrder).find({ order })).toEqual(await plain.getRepository(GkOrder).find({ order }));
    }
  });

  it('a plain object, a QueryBuilder insert and an upsert get ids too; a given id is kept', async () => {
    const { sharded } = await open();
    const row: Partial<GkOrder> = { title: 'plain object' };
    const r1 = await sharded.getRepository(GkOrder).insert(row);
    expect(r1.identifiers).toEqual([{ id: row.id }]);
    expect(typeof row.id).toBe('string');

    const values = [{ title: 'qb 1' }, { title: 'qb 2' }];
    const r2 = await sharded.createQueryBuilder().insert().into(GkOrder).values(values).execute();
    expect(r2.identifiers.map((i: ObjectLiteral) => i.id)).toEqual(values.map((v) => (v as Partial<GkOrder>).id));

    const upserted: Partial<GkOrder> = { title: 'upsert' };
    const r3 = await sharded.getRepository(GkOrder).upsert(upserted, ['id']);
    expect(r3.identifiers).toEqual([{ id: upserted.id }]);
    expect(upserted.id).toMatch(/^\d+$/);

    const given = sharded.keyGenerator.nextId();
    await sharded.getRepository(GkOrder).insert({ id: given, title: 'given' });
    const explicitNull = { id: null as unknown as string, title: 'null id' };
    await sharded.getRepository(GkOrder).insert(explicitNull);
    expect(explicitNull.id).toMatch(/^\d+$/);
    const rows = await rowsOf(sharded, 'gk_orders');
    expect(rows.map((r) => r.title)).toEqual(['plain object', 'qb 1', 'qb 2', 'upsert', 'given', 'null id']);
    expect(rows.map((r) => r.sid)).toEqual([row.id, ...values.map((v) => (v as Partial<GkOrder>).id), upserted.id, given, explicitNull.id]);
    expect((await sharded.getRepository(GkOrder).findOneByOrFail({ id: given })).title).toBe('given');
  });

  it('a Snowflake primary key beside another shard key: accepted as unique, row read back as on one database', async () => {
    const { sharded, plain } = await open();
    const notes = [1, 2, 3, 4, 5].map((userId) => Object.assign(new GkNote(), { userId, body: `b${userId}` }));
    const result = await sharded.getRepository(GkNote).insert(notes);
    expect(insertShards(fx!).length).toBeGreaterThan(1);
    // The ids as generated (on SQLite TypeORM has already put the rounded ids it read back into the entities).
    const generated = (await rowsOf(sharded, 'gk_notes')).map((r) => r.sid as string);
    const copies = notes.map((n, i) => Object.assign(new GkNote(), { id: generated[i], userId: n.userId, body: n.body }));
    const expected = await plain.getRepository(GkNote).insert(copies);
    // On SQLite TypeORM re-reads the rows by id and hands back the id as better-sqlite3 reads it
    // (a number, rounded beyond 2^53) — the same on one plain DataSource.
    expect(result.identifiers).toEqual(expected.identifiers);
    expect(result.generatedMaps).toEqual(expected.generatedMaps);
    expect(notes).toEqual(copies);
    expect(await rowsOf(sharded, 'gk_notes')).toEqual(await rowsOf(plain, 'gk_notes'));
    if (backend === 'mariadb') {
      expect(notes.map((n) => n.id)).toEqual(generated);
      expect(notes.every((n) => n.status === 'new')).toBe(true);
    }
  });

  it('TypeORM re-reads inserted rows with ids beyond 2^53 and gets each entity its own row back', async () => {
    const { sharded, plain } = await open();
    // Users whose shards come in reverse order: the shards answer the re-read in the opposite
    // order of its WHERE, and better-sqlite3 reads the ids rounded, so only exact matching helps.
    const users: number[] = [];
    for (let shard = 3, u = 1; shard >= 0; u++) {
      if (sharded.shardOf(GkNote, u) === `s${shard}`) {
        users.push(u);
        shard--;
      }
    }
    const make = () => users.map((userId, i) => Object.assign(new GkNote(), { id: String(2n ** 60n + 5000n * BigInt(i)), userId, body: `u${userId}` }));
    const notes = make();
    const copies = make();
    const result = await sharded.getRepository(GkNote).insert(notes);
    const expected = await plain.getRepository(GkNote).insert(copies);
    expect(result.identifiers).toEqual(expected.identifiers);
    expect(result.generatedMaps).toEqual(expected.generatedMaps);
    expect(notes).toEqual(copies);
    expect(notes.map((n) => n.body)).toEqual(users.map((u) => `u${u}`));
  });

  it('a text column gets the id zero-padded to 19 digits, exact in JavaScript on every driver', async () => {
    const { sharded, plain } = await open();
    const tickets = ['a', 'b', 'c'].map((subject) => Object.assign(new GkTicket(), { subject }));
    const result = await sharded.getRepository(GkTicket).save(tickets);
    for (const t of result) {
      expect(t.code).toMatch(/^\d{19}$/);
      expect(decodeSnowflake(t.code).workerId).toBe(WORKER);
    }
    await plain.getRepository(GkTicket).save(tickets.map((t) => ({ ...t })));
    const order = { code: 'ASC' } as const;
    const found = await sharded.getRepository(GkTicket).find({ order });
    expect(found).toEqual(await plain.getRepository(GkTicket).find({ order }));
    expect(found.map((t) => t.subject)).toEqual(['a', 'b', 'c']);
  });

  it('a cart saved with its lines (cascade): the lines are sharded by the generated cart id, all on its shard', async () => {
    const { sharded } = await open();
    const carts = ['ann', 'bob', 'cy'].map((owner) => Object.assign(new GkCart(), { owner, lines: ['x', 'y'].map((sku) => Object.assign(new GkLine(), { sku })) }));
    await sharded.transaction((em) => em.getRepository(GkCart).save(carts));
    for (const cart of carts) {
      const shard = sharded.getShardDataSource(sharded.shardOf(GkCart, cart.id));
      expect(cart.lines.map((l) => l.cartId)).toEqual([cart.id, cart.id]);
      expect(new Set([cart.id, ...cart.lines.map((l) => l.id)]).size).toBe(3);
      expect(await shard.getRepository(GkLine).countBy({ cartId: cart.id })).toBe(2);
    }
    // (On SQLite TypeORM folds lines whose ids better-sqlite3 rounds to one number, as on one database.)
    if (backend === 'mariadb') {
      const loaded = await sharded.getRepository(GkCart).find({ where: { id: carts[1]!.id }, relations: { lines: true } });
      expect(loaded.map((c) => [c.owner, c.lines.map((l) => l.sku).sort()])).toEqual([['bob', ['x', 'y']]]);
    }
  });

  it("the application's own subscribers see the generated id", async () => {
    const seen: unknown[] = [];
    @EventSubscriber()
    class Recorder implements EntitySubscriberInterface<GkOrder> {
      listenTo() {
        return GkOrder;
      }
      beforeInsert(event: InsertEvent<GkOrder>) {
        seen.push(event.entity.id);
      }
    }
    fx = await openFixture(backend, GLOBAL_KEY_ENTITIES, 2, { keyGenerator: { workerId: WORKER } }, { subscribers: [Recorder] });
    const order = await fx.sharded.getRepository(GkOrder).save({ title: 'seen' });
    expect(seen).toEqual([order.id]);
    expect(order.id).toMatch(/^\d+$/);
  });

  it('with listeners off no id is generated: the INSERT is refused, naming the missing key', async () => {
    const { sharded } = await open();
    const error = await sharded.getRepository(GkOrder).save(Object.assign(new GkOrder(), { title: 'x' }), { listeners: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingShardKeyError);
    expect(await sharded.getRepository(GkOrder).count()).toBe(0);
  });
});

describe('@Snowflake() configuration errors', () => {
  @Entity('bad_int')
  class IntKey {
    @PrimaryColumn('int') @Snowflake() id!: number;
  }
  @Entity('bad_short')
  class ShortText {
    @PrimaryColumn('varchar', { length: 10 }) @Snowflake() id!: string;
  }
  @Entity('bad_generated')
  class Generated {
    @PrimaryGeneratedColumn('increment', { type: 'bigint' }) @Snowflake() id!: string;
  }
  @Entity('fine')
  class Fine {
    @PrimaryColumn('bigint') @Snowflake() id!: string;
    @Column('varchar', { length: 10 }) name!: string;
  }

  const initError = (entities: Function[], sharding: object = { keyGenerator: { workerId: 1 } }, backend: Backend = 'sqlite') =>
    openFixture(backend, entities, 2, sharding).then(async (f) => {
      await f.close();
      return undefined;
    }, (e: unknown) => e);

  it('needs sharding.keyGenerator', async () => {
    const error = await initError([Fine], {});
    expect(error).toBeInstanceOf(ShardingConfigError);
    expect((error as Error).message).toMatch(/Entity Fine: @Snowflake\(\) on "id" needs a key generator: set sharding.keyGenerator/);
  });

  it.each([
    ['a too short text column', ShortText, /varchar\(10\), too short for a Snowflake id of 19 digits/],
    ['a TypeORM-generated column', Generated, /already generated by TypeORM \(increment\)/],
  ])('refuses %s', async (_label, entity, message) => {
    const error = await initError([entity]);
    expect(error).toBeInstanceOf(ShardingConfigError);
    expect((error as Error).message).toMatch(message);
  });

  it.runIf(backends.includes('mariadb'))('refuses an INT column on MariaDB (SQLite integers are 64-bit)', async () => {
    const error = await initError([IntKey], undefined, 'mariadb');
    expect((error as Error).message).toMatch(/Entity IntKey: @Snowflake\(\) property "id" has type "int", which cannot hold a 63-bit Snowflake id/);
    expect(await initError([IntKey])).toBeUndefined();
  });

  it('warns on SQLite that integer Snowflake columns are read back rounded, not for text ones', async () => {
    const warnings: string[] = [];
    const logger = {
      logQuery() {},
      logQueryError() {},
      logQuerySlow() {},
      logSchemaBuild() {},
      logMigration() {},
      log(level: string, message: unknown) {
        if (level === 'warn') warnings.push(String(message));
      },
    };
    const f = await openFixture('sqlite', [GkOrder, GkTicket], 2, { keyGenerator: { workerId: 1 } }, { logger });
    await f.close();
    expect(warnings).toEqual([expect.stringMatching(/@Snowflake\(\) ids in integer columns \(GkOrder\.id\) .* rounded .* varchar\(19\)/)]);
  });

  it('validates sharding.keyGenerator in the constructor', async () => {
    for (const [keyGenerator, message] of [
      [{ workerId: 1024 }, /workerId must be an integer from 0 to 1023 or 'lease'/],
      [{ workerId: 'auto' }, /workerId must be/],
      [{ workerId: 1, epoch: Date.now() + 60_000 }, /epoch .* is in the future/],
      [{ workerId: 1, leaseMs: 5000 }, /apply only to workerId: 'lease'/],
      [{ workerId: 'lease', leaseTable: 'x; DROP' }, /plain table name/],
      [{ workerId: 1, maxClockBackwardMs: -1 }, /non-negative integer/],
    ] as const) {
      expect(await initError([Fine], { keyGenerator }), JSON.stringify(keyGenerator)).toMatchObject({ message: expect.stringMatching(message) });
    }
  });

  it('keyGenerator is there once initialised, and says what is missing otherwise', async () => {
    const f = await openFixture('sqlite', [Fine], 2, { keyGenerator: { workerId: 5 } });
    try {
      expect(decodeSnowflake(f.sharded.keyGenerator.nextId()).workerId).toBe(5);
      expect(f.sharded.keyGenerator.workerId).toBe(5);
    } finally {
      await f.close();
    }
    expect(() => f.sharded.keyGenerator).toThrow(/not initialised/);
    const without = await openFixture('sqlite', [GkPlain], 2);
    try {
      expect(() => without.sharded.keyGenerator).toThrow(/No key generator: set sharding.keyGenerator/);
    } finally {
      await without.close();
    }
  });
});

@Entity('gk_plain')
class GkPlain {
  @PrimaryColumn('int') id!: number;
}



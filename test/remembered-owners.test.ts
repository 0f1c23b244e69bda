import 'reflect-metadata';
import { afterEach, describe, expect, it } from 'vitest';
import type { ShardingOptions } from '../packages/typeorm-sharding/src/index.js';
import { GX_ENTITIES, GxUser } from './support/global-index-entities.js';
import { openFixture, type Backend, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';

// The owners a unique index's lookups found are remembered and read first (OwnerMemory): a
// guess the read checks. Each test makes the guess wrong in one way and compares the answer
// with one plain database given the same calls.

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];
const user = (id: number, email: string, nick: string | null = null): Partial<GxUser> => ({ id, email, nick, name: `u${id}` });

describe.each(backends)('remembered owners of unique values on %s', (backend) => {
  let fx: Fixture;
  afterEach(async () => fx?.close());

  async function open(sharding: ShardingOptions = {}): Promise<[number, number]> {
    fx = await openFixture(backend, GX_ENTITIES, 4, sharding);
    const first = fx.sharded.shardOf(GxUser, 1);
    for (let id = 2; id < 100; id++) if (fx.sharded.shardOf(GxUser, id) !== first) return [1, id];
    throw new Error('no second shard');
  }

  /** Runs `call` on both data sources, checks they agree, and returns the physical statements it ran as `lookup|owner <shard>`. */
  async function same<T>(call: (ds: Fixture['plain']) => Promise<T>): Promise<string[]> {
    fx.physical.length = 0;
    const sharded = await call(fx.sharded);
    const statements = fx.physical.map((e) => `${/gx_users__gidx_email/.test(e.sql) ? 'lookup' : 'owner'} ${e.shard}`);
    expect(sharded).toEqual(await call(fx.plain));
    return statements;
  }

  async function both(work: (ds: Fixture['plain']) => Promise<unknown>): Promise<void> {
    await work(fx.sharded);
    await work(fx.plain);
  }

  const owner = (id: number) => `owner ${fx.sharded.shardOf(GxUser, id)}`;
  const lookup = (email: string) => `lookup ${fx.sharded.shardOf('gx_users__gidx_email', email)}`;
  const byEmail = (email: string) => (ds: Fixture['plain']) => ds.getRepository(GxUser).findOneBy({ email });

  async function metric(name: string): Promise<number> {
    const metrics = await fx.sharded.indexMetrics.registry.getMetricsAsJSON();
    return metrics.find((m) => m.name === `typeorm_sharding_index_${name}`)?.values.reduce((n, v) => n + v.value, 0) ?? 0;
  }

  /** `a@x` read once with owner `a` (remembered), then moved: `a` takes another email, `b` takes `a@x`. */
  async function rememberThenMove(a: number, b: number): Promise<void> {
    await both((ds) => ds.getRepository(GxUser).insert(user(a, 'a@x')));
    await same(byEmail('a@x'));
    await both(async (ds) => {
      await ds.getRepository(GxUser).update({ id: a }, { email: 'old@x' });
      await ds.getRepository(GxUser).insert(user(b, 'a@x'));
    });
  }

  it('reads the owner shard straight away the second time: one round trip', async () => {
    const [a] = await open();
    await both((ds) => ds.getRepository(GxUser).insert(user(a, 'a@x')));
    expect(await same(byEmail('a@x'))).toEqual([lookup('a@x'), owner(a)]);
    expect(await same(byEmail('a@x'))).toEqual([owner(a)]);
    expect(await metric('remembered_hits_total')).toBe(1);
  });

  it('follows a value that moved to an owner on another shard (the stale guess finds nothing, the lookup is read)', async () => {
    const [a, b] = await open();
    await rememberThenMove(a, b);
    expect(await same(byEmail('a@x'))).toEqual([owner(a), lookup('a@x'), owner(b)]);
    expect(await metric('remembered_stale_total')).toBe(1);
    expect(await same(byEmail('a@x'))).toEqual([owner(b)]);
  });

  it('finds nothing for a deleted value, and remembers nothing for it', async () => {
    const [a] = await open();
    await both((ds) => ds.getRepository(GxUser).insert(user(a, 'a@x')));
    await same(byEmail('a@x'));
    await both((ds) => ds.getRepository(GxUser).delete({ id: a }));
    expect(await same(byEmail('a@x'))).toEqual([owner(a), lookup('a@x')]);
    expect(await same(byEmail('a@x'))).toEqual([lookup('a@x')]);
  });

  it('counts by a value whose remembered owner is stale as one database does (COUNT gives a row when nothing matches)', async () => {
    const [a, b] = await open();
    await rememberThenMove(a, b);
    await same((ds) => ds.getRepository(GxUser).countBy({ email: 'a@x' }));
    await same((ds) => ds.query('SELECT COUNT(*) AS n FROM gx_users WHERE email = ?', ['a@x']).then((r: { n: unknown }[]) => Number(r[0]!.n)));
    await same((ds) => ds.getRepository(GxUser).findOneBy({ email: 'a@x' }));
  });

  it('answers a read whose other conditions filter the remembered row out, then reads the owner through the lookup again', async () => {
    const [a] = await open();
    await both((ds) => ds.getRepository(GxUser).insert(user(a, 'a@x', 'ann')));
    await same(byEmail('a@x'));
    expect(await same((ds) => ds.getRepository(GxUser).findOneBy({ email: 'a@x', nick: 'bob' }))).toEqual([owner(a), lookup('a@x'), owner(a)]);
    // The miss forgot the guess; the next read that finds the row remembers it again.
    expect(await same((ds) => ds.getRepository(GxUser).findOneBy({ email: 'a@x', nick: 'ann' }))).toEqual([lookup('a@x'), owner(a)]);
    expect(await same(byEmail('a@x'))).toEqual([owner(a)]);
  });

  it('reads through the lookup in a transaction (its own writes are what it must see)', async () => {
    const [a, b] = await open();
    await both((ds) => ds.getRepository(GxUser).insert(user(a, 'a@x')));
    await same(byEmail('a@x'));
    const inTransaction = await same((ds) =>
      ds.transaction(async (em) => {
        await em.getRepository(GxUser).update({ id: a }, { email: 'old@x' });
        await em.getRepository(GxUser).insert(user(b, 'a@x'));
        fx.physical.length = 0;
        return em.getRepository(GxUser).findOneBy({ email: 'a@x' });
      }),
    );
    expect(inTransaction.slice(0, 2)).toEqual([lookup('a@x'), owner(b)]);
  });

  it('remembers nothing with rememberedOwners: 0', async () => {
    const [a] = await open({ rememberedOwners: 0 });
    await both((ds) => ds.getRepository(GxUser).insert(user(a, 'a@x')));
    for (let i = 0; i < 2; i++) expect(await same(byEmail('a@x'))).toEqual([lookup('a@x'), owner(a)]);
  });

  it('never remembers an owner found for a value of another type than the column (a number asked of a string column)', async () => {
    const [a, b] = await open();
    await both((ds) => ds.getRepository(GxUser).insert(user(a, '5')));
    const byNumber = (ds: Fixture['plain']) => ds.query('SELECT id FROM gx_users WHERE email = ? ORDER BY id', [5]).then((rows: { id: unknown }[]) => rows.map((r) => Number(r.id)));
    await same(byNumber);
    // On MySQL '05' = 5 as numbers: the one-row guess of the first read would miss it.
    await both((ds) => ds.getRepository(GxUser).insert(user(b, '05')));
    await same(byNumber);
  });
});

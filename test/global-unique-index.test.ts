import 'reflect-metadata';
import { afterEach, describe, expect, it } from 'vitest';
import { In, QueryFailedError, type DataSource } from 'typeorm';
import { UnsupportedShardingError } from '../packages/typeorm-sharding/src/index.js';
import { unbuiltIndexes } from '../packages/typeorm-sharding/src/indexes/index.js';
import { GX_ENTITIES, GxAvatar, GxOrder, GxProfile, GxUser } from './support/global-index-entities.js';
import { openFixture, type Backend, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];

const user = (id: number, email: string, nick: string | null = null): Partial<GxUser> => ({ id, email, nick, name: `u${id}` });

/** Two ids whose users live on different shards. */
function idsOnTwoShards(fx: Fixture): [number, number] {
  const first = fx.sharded.shardOf(GxUser, 1);
  for (let id = 2; id < 100; id++) if (fx.sharded.shardOf(GxUser, id) !== first) return [1, id];
  throw new Error('no second shard');
}

async function failure(work: Promise<unknown>): Promise<QueryFailedError & { driverError: { code?: string; errno?: number; sqlState?: string } }> {
  const error = await work.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(QueryFailedError);
  return error as never;
}

/** The lookup rows of `gx_users.email`, as `email→id`, sorted. */
async function emailEntries(ds: DataSource): Promise<string[]> {
  const rows: { email: string; id: unknown }[] = await ds.query('SELECT email, id FROM gx_users__gidx_email');
  return rows.map((r) => `${r.email}→${String(r.id)}`).sort();
}

async function emails(ds: DataSource): Promise<string[]> {
  const rows: { email: string; id: unknown }[] = await ds.query('SELECT email, id FROM gx_users');
  return rows.map((r) => `${r.email}→${String(r.id)}`).sort();
}

const DUPLICATE = { sqlite: 'SQLITE_CONSTRAINT_UNIQUE', mariadb: 'ER_DUP_ENTRY' } as const;

describe.each(backends)('global unique indexes on %s', (backend) => {
  let fx: Fixture;
  afterEach(async () => fx?.close());

  it('initialises the everyday schemas without uniquePerShard and creates the lookup tables on every shard', async () => {
    fx = await openFixture(backend, GX_ENTITIES, 4);
    expect(fx.sharded.shardingRules.globalIndexes.map((g) => g.lookupTable).sort()).toEqual(['gx_orders__gidx_id', 'gx_profiles__gidx_avatarId', 'gx_users__gidx_email', 'gx_users__gidx_nick']);
    for (const name of fx.sharded.shardNames) {
      const shard = fx.sharded.getShardDataSource(name);
      await expect(shard.query('SELECT email, id FROM gx_users__gidx_email')).resolves.toEqual([]);
    }
  });

  it('finds an index whose lookup table was never built for the rows already there (initialize() makes it write-only: build-indexes.test.ts)', async () => {
    fx = await openFixture(backend, GX_ENTITIES, 4);
    const [a, b] = idsOnTwoShards(fx);
    await fx.sharded.getRepository(GxUser).insert([user(a, 'ann@x'), user(b, 'bob@x')]);
    const unbuilt = () => unbuiltIndexes(fx.sharded.shardingRules.globalIndexes, (sql) => fx.sharded.query(sql), (name) => fx.sharded.driver.escape(name));
    await expect(unbuilt()).resolves.toEqual([]);
    // As if the index had been declared on a table that already held these rows.
    for (const name of fx.sharded.shardNames) await fx.sharded.getShardDataSource(name).query('DELETE FROM gx_users__gidx_email');
    expect((await unbuilt()).map((g) => g.lookupTable)).toEqual(['gx_users__gidx_email']);
  });

  it('rejects a duplicate on another shard with the one-database error and writes nothing of the statement', async () => {
    fx = await openFixture(backend, GX_ENTITIES, 4);
    const [a, b] = idsOnTwoShards(fx);
    for (const ds of [fx.sharded, fx.plain]) await ds.getRepository(GxUser).insert(user(a, 'ann@x'));
    const plain = await failure(fx.plain.getRepository(GxUser).insert(user(b, 'ann@x')));
    const sharded = await failure(fx.sharded.getRepository(GxUser).insert(user(b, 'ann@x')));
    expect(sharded.driverError.code).toBe(plain.driverError.code);
    expect(sharded.driverError.code).toBe(DUPLICATE[backend]);
    expect(sharded.driverError.errno).toBe(plain.driverError.errno);
    expect(sharded.driverError.sqlState).toBe(plain.driverError.sqlState);
    const index = fx.sharded.shardingRules.globalIndexes.find((g) => g.lookupTable === 'gx_users__gidx_email')!;
    expect(sharded.message).toContain(backend === 'mariadb' ? index.indexName : 'gx_users.email');
    expect(sharded.message).toContain('gx_users__gidx_email');
    expect(await emails(fx.sharded)).toEqual([`ann@x→${a}`]);
    expect(await emailEntries(fx.sharded)).toEqual([`ann@x→${a}`]);
  });

  it('treats values the column\'s collation finds equal as one value (MariaDB _ci: case, accents, trailing spaces), as one database', async () => {
    fx = await openFixture(backend, GX_ENTITIES, 4);
    const spellings = ['Ann@X', 'ann@x', 'ANN@x ', 'Änn@x', 'bob@x'];
    const outcomes = async (ds: DataSource) => {
      const out: string[] = [];
      for (const [i, email] of spellings.entries()) out.push(await ds.getRepository(GxUser).insert(user(i + 1, email)).then(() => 'ok', (e: { driverError?: { code?: string } }) => String(e.driverError?.code)));
      return out;
    };
    const plain = await outcomes(fx.plain);
    expect(await outcomes(fx.sharded)).toEqual(plain);
    expect(plain).toEqual(backend === 'mariadb' ? ['ok', 'ER_DUP_ENTRY', 'ER_DUP_ENTRY', 'ER_DUP_ENTRY', 'ok'] : ['ok', 'ok', 'ok', 'ok', 'ok']);
  });

  it('refuses a multi-row insert with a duplicate inside or against a stored row, nothing written', async () => {
    fx = await openFixture(backend, GX_ENTITIES, 4);
    await fx.sharded.getRepository(GxUser).insert(user(1, 'a@x'));
    await failure(fx.sharded.getRepository(GxUser).insert([user(2, 'b@x'), user(3, 'c@x'), user(4, 'b@x')]));
    await failure(fx.sharded.getRepository(GxUser).insert([user(5, 'e@x'), user(6, 'a@x')]));
    await failure(fx.sharded.query('INSERT INTO gx_users (id, email, name) VALUES (7, \'g@x\', \'\'), (8, \'a@x\', \'\')'));
    // The row itself is refused (its primary key) after its entry went in: the entry goes too.
    await failure(fx.sharded.getRepository(GxUser).insert(user(1, 'new@x')));
    await failure(fx.sharded.transaction((em) => em.getRepository(GxUser).insert([user(9, 'nine@x'), user(1, 'new@x')])));
    expect(await emails(fx.sharded)).toEqual(['a@x→1']);
    expect(await emailEntries(fx.sharded)).toEqual(['a@x→1']);
    await fx.sharded.getRepository(GxUser).insert([user(2, 'b@x'), user(3, 'c@x'), user(4, 'd@x')]);
    expect(await emailEntries(fx.sharded)).toEqual(await emails(fx.sharded));
  });

  it('moves a value on update and frees it on delete, as one database', async () => {
    fx = await openFixture(backend, GX_ENTITIES, 4);
    const [a, b] = idsOnTwoShards(fx);
    const repo = fx.sharded.getRepository(GxUser);
    await repo.insert([user(a, 'a@x'), user(b, 'b@x')]);
    await failure(repo.update({ id: a }, { email: 'b@x' }));
    await repo.update({ id: a }, { email: 'c@x' });
    await repo.insert(user(3, 'a@x')); // freed by the update
    await failure(repo.insert(user(4, 'c@x')));
    await fx.sharded.query('UPDATE gx_users SET email = ?, name = ? WHERE id = ?', ['d@x', 'raw', b]);
    await repo.delete({ id: a });
    await repo.insert(user(5, 'c@x')); // freed by the delete
    await fx.sharded.query('DELETE FROM gx_users WHERE email = ?', ['a@x']);
    await repo.insert(user(6, 'a@x'));
    const saved = await repo.findOneByOrFail({ id: 6 });
    saved.email = 'e@x';
    await repo.save(saved);
    await repo.insert(user(7, 'a@x'));
    expect(await emailEntries(fx.sharded)).toEqual(await emails(fx.sharded));
    expect(await emails(fx.sharded)).toEqual([`a@x→7`, `c@x→5`, `d@x→${b}`, 'e@x→6']);
  });

  it('keeps the value of a soft-deleted row, as one database keeps it in its index', async () => {
    fx = await openFixture(backend, GX_ENTITIES, 4);
    const repo = fx.sharded.getRepository(GxUser);
    await repo.insert(user(1, 'a@x'));
    await repo.softDelete({ id: 1 });
    await failure(repo.insert(user(2, 'a@x')));
    await repo.restore({ id: 1 });
    expect(await emailEntries(fx.sharded)).toEqual(['a@x→1']);
  });

  it('does not index NULL: several rows may have no nick', async () => {
    fx = await openFixture(backend, GX_ENTITIES, 4);
    const repo = fx.sharded.getRepository(GxUser);
    await repo.insert([user(1, 'a@x'), user(2, 'b@x'), user(3, 'c@x', 'cee')]);
    await failure(repo.insert(user(4, 'd@x', 'cee')));
    await repo.update({ id: 3 }, { nick: null });
    await repo.insert(user(4, 'd@x', 'cee'));
    const rows: unknown[] = await fx.sharded.query('SELECT nick, id FROM gx_users__gidx_nick');
    expect(rows).toHaveLength(1);
  });

  it('rolls the entries back with a user transaction, and a duplicate inside one undoes only its statement', async () => {
    fx = await openFixture(backend, GX_ENTITIES, 4);
    const [a, b] = idsOnTwoShards(fx);
    await fx.sharded.getRepository(GxUser).insert(user(a, 'a@x'));
    await expect(fx.sharded.transaction(async (em) => {
      await em.getRepository(GxUser).insert(user(b, 'b@x'));
      await em.getRepository(GxUser).update({ id: a }, { email: 'z@x' });
      throw new Error('application failure');
    })).rejects.toThrow('application failure');
    expect(await emailEntries(fx.sharded)).toEqual([`a@x→${a}`]);
    await fx.sharded.transaction(async (em) => {
      await em.getRepository(GxUser).insert(user(b, 'b@x'));
      await failure(em.getRepository(GxUser).insert([user(3, 'c@x'), user(4, 'a@x')]));
    });
    expect(await emails(fx.sharded)).toEqual([`a@x→${a}`, `b@x→${b}`]);
    expect(await emailEntries(fx.sharded)).toEqual(await emails(fx.sharded));
  });

  it('enforces a primary key without the shard key and a one-to-one join column across shards', async () => {
    fx = await openFixture(backend, GX_ENTITIES, 4);
    const orders = fx.sharded.getRepository(GxOrder);
    await orders.insert({ id: 1, userId: 1, amount: 5 });
    let other = 2;
    while (fx.sharded.shardOf(GxOrder, other) === fx.sharded.shardOf(GxOrder, 1)) other++;
    await failure(orders.insert({ id: 1, userId: other, amount: 6 }));
    await orders.insert({ id: 2, userId: other, amount: 6 });
    expect((await orders.find({ order: { id: 'ASC' } })).map((o) => `${o.id}/${o.userId}`)).toEqual(['1/1', `2/${other}`]);
    await fx.sharded.getRepository(GxAvatar).insert([{ id: 1 }, { id: 2 }]);
    const profiles = fx.sharded.getRepository(GxProfile);
    await profiles.insert({ userId: 1, avatarId: 1 });
    await failure(profiles.insert({ userId: other, avatarId: 1 }));
    await profiles.insert({ userId: other, avatarId: 2 });
  });

  it('refuses what the maintenance cannot do exactly, naming the fix', async () => {
    fx = await openFixture(backend, GX_ENTITIES, 4);
    await fx.sharded.getRepository(GxUser).insert(user(1, 'a@x'));
    const concat = backend === 'sqlite' ? "email || 'x'" : "CONCAT(email, 'x')";
    await expect(fx.sharded.query(`UPDATE gx_users SET email = ${concat} WHERE id = 1`)).rejects.toThrow(UnsupportedShardingError);
    await expect(fx.sharded.query(`UPDATE gx_users SET email = ${concat} WHERE id = 1`)).rejects.toThrow(/set it to a value/);
    // REPLACE deletes every row the new one conflicts with: not routed through the lookup.
    const replace = backend === 'sqlite' ? `INSERT OR REPLACE INTO gx_users (id, email, name) VALUES (1, 'b@x', '')` : `REPLACE INTO gx_users (id, email, name) VALUES (1, 'b@x', '')`;
    await expect(fx.sharded.query(replace)).rejects.toThrow(UnsupportedShardingError);
    expect(await emailEntries(fx.sharded)).toEqual(['a@x→1']);
    // An upsert on the shard key is routed (test/global-index-upsert.test.ts): the email and its entry follow.
    await fx.sharded.getRepository(GxUser).upsert(user(1, 'b@x'), ['id']);
    expect(await emailEntries(fx.sharded)).toEqual(['b@x→1']);
  });

  it('routes findOneBy({ email }) through the lookup: the lookup\'s shard, then one owner shard', async () => {
    fx = await openFixture(backend, GX_ENTITIES, 8);
    const repo = fx.sharded.getRepository(GxUser);
    await repo.insert(Array.from({ length: 16 }, (_, i) => user(i + 1, `u${i + 1}@x`)));
    fx.physical.length = 0;
    const found = await repo.findOneBy({ email: 'u7@x' });
    expect(found?.id).toBe(7);
    expect(fx.physical.map((e) => `${e.shard} ${/gx_users__gidx_email/.test(e.sql) ? 'lookup' : 'owner'}`)).toEqual([
      `${fx.sharded.shardOf('gx_users__gidx_email', 'u7@x')} lookup`,
      `${fx.sharded.shardOf(GxUser, 7)} owner`,
    ]);
    fx.physical.length = 0;
    const some = await repo.find({ where: { email: In(['u3@x', 'u12@x', 'none@x']) }, order: { id: 'ASC' } });
    expect(some.map((u) => u.id)).toEqual([3, 12]);
    const owners = fx.physical.filter((e) => !/gx_users__gidx_email/.test(e.sql)).map((e) => e.shard).sort();
    expect(owners).toEqual([...new Set([fx.sharded.shardOf(GxUser, 3), fx.sharded.shardOf(GxUser, 12)])].sort());
    expect(await repo.findOneBy({ email: 'none@x' })).toBeNull();
    expect(fx.sharded.planCacheStats.size).toBeLessThan(12);
  });

  it('never returns a wrong row for a stale lookup entry, and reads its own writes in a transaction', async () => {
    fx = await openFixture(backend, GX_ENTITIES, 4);
    const repo = fx.sharded.getRepository(GxUser);
    const [a, b] = idsOnTwoShards(fx);
    await repo.insert([user(a, 'a@x'), user(b, 'b@x')]);
    // An entry left pointing at the wrong owner (as a crash between writes could leave one).
    const lookupShard = fx.sharded.getShardDataSource(fx.sharded.shardOf('gx_users__gidx_email', 'a@x'));
    await lookupShard.query('UPDATE gx_users__gidx_email SET id = ? WHERE email = ?', [b, 'a@x']);
    expect(await repo.findOneBy({ email: 'a@x' })).toBeNull();
    await lookupShard.query('UPDATE gx_users__gidx_email SET id = ? WHERE email = ?', [a, 'a@x']);
    await fx.sharded.transaction(async (em) => {
      await em.getRepository(GxUser).insert(user(3, 'c@x'));
      await em.getRepository(GxUser).update({ id: a }, { email: 'aa@x' });
      expect((await em.getRepository(GxUser).findOneBy({ email: 'c@x' }))?.id).toBe(3);
      expect((await em.getRepository(GxUser).findOneBy({ email: 'aa@x' }))?.id).toBe(a);
      expect(await em.getRepository(GxUser).findOneBy({ email: 'a@x' })).toBeNull();
    });
    for (const email of ['aa@x', 'b@x', 'c@x']) {
      expect((await repo.findOneBy({ email }))?.email).toBe(email);
      expect((await fx.plain.getRepository(GxUser).findOneBy({ email }))?.email ?? email).toBe(email);
    }
  });
});

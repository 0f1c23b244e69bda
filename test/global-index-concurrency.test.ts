import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { In, QueryFailedError } from 'typeorm';
import { ShardedDataSource } from '../packages/typeorm-sharding/src/index.js';
import { canStartMariadb, startServers, type MariadbCluster } from './support/mariadb-cluster.js';
import { GX_ENTITIES, GxUser } from './support/global-index-entities.js';

// Issue 16: 32 clients insert (then move their row to) the same email, with ids on different
// shards of two mariadbd servers. The lookup row of the email is the one place they meet: exactly
// one commits, every other gets the one-database duplicate-key error and writes nothing. And 32
// upserts of one email: each one succeeds (it inserts, or updates the row that owns the email), and
// one row owns it at the end, with its lookup row.

const CLIENTS = 32;
// TSH_GIDX_PORTS=a,b runs the servers on other ports (0: a free one), for a second run beside another.
const PORTS = (process.env.TSH_GIDX_PORTS ?? '3531,3532').split(',').map(Number);

describe.runIf(canStartMariadb())(`${CLIENTS} clients writing one email over two MariaDB servers`, () => {
  let cluster: MariadbCluster;
  let ds: ShardedDataSource;

  beforeAll(async () => {
    cluster = await startServers(2, { serverOptions: ['--innodb-lock-wait-timeout=5'], ports: PORTS.map((p) => p || undefined) as number[] });
    const nodes = [cluster.primary, ...cluster.replicas];
    const shards = [0, 1, 2, 3].map((i) => ({ name: `s${i}`, server: `db${i % 2}`, database: `tsh_gidx_${i}` }));
    await Promise.all(nodes.map((n, j) => cluster.sql(n, ...shards.filter((s) => s.server === `db${j}`).map((s) => `CREATE DATABASE \`${s.database}\``))));
    ds = await new ShardedDataSource({
      type: 'mariadb',
      username: 'root',
      password: '',
      entities: GX_ENTITIES,
      synchronize: true,
      servers: nodes.map((n, i) => ({ name: `db${i}`, host: '127.0.0.1', port: n.port, poolSize: CLIENTS + 4 })),
      shards,
    } as never).initialize();
  }, 120_000);

  afterAll(async () => {
    await ds?.destroy();
    await cluster?.stop();
  });

  const outcome = async (writes: (() => Promise<unknown>)[]) => {
    const results = await Promise.allSettled(writes.map((w) => w()));
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as unknown);
    for (const e of failed) {
      expect(e).toBeInstanceOf(QueryFailedError);
      expect((e as QueryFailedError & { driverError: { code?: string } }).driverError.code).toBe('ER_DUP_ENTRY');
    }
    return results.length - failed.length;
  };

  const owners = async (email: string) => {
    const rows: { id: unknown }[] = await ds.query('SELECT id FROM gx_users WHERE email = ?', [email]);
    const entries: { id: unknown }[] = await ds.query('SELECT id FROM gx_users__gidx_email WHERE email = ?', [email]);
    return { rows: rows.map((r) => Number(r.id)), entries: entries.map((r) => Number(r.id)) };
  };

  it('lets exactly one insert of the same email commit', async () => {
    const ids = Array.from({ length: CLIENTS }, (_, i) => 1000 + i);
    expect(new Set(ids.map((id) => ds.shardOf(GxUser, id))).size).toBe(4);
    const committed = await outcome(ids.map((id) => () => ds.getRepository(GxUser).insert({ id, email: 'same@x', nick: null, name: '' })));
    expect(committed).toBe(1);
    const { rows, entries } = await owners('same@x');
    expect(rows).toHaveLength(1);
    expect(entries).toEqual(rows);
    expect(await ds.getRepository(GxUser).count()).toBe(1);
  }, 60_000);

  it('lets exactly one update moving rows to the same email commit', async () => {
    const ids = Array.from({ length: CLIENTS }, (_, i) => 2000 + i);
    await ds.getRepository(GxUser).insert(ids.map((id) => ({ id, email: `u${id}@x`, nick: null, name: '' })));
    const committed = await outcome(ids.map((id) => () => ds.getRepository(GxUser).update({ id }, { email: 'moved@x' })));
    expect(committed).toBe(1);
    const { rows, entries } = await owners('moved@x');
    expect(rows).toHaveLength(1);
    expect(entries).toEqual(rows);
    // Every other row kept its own email and its entry.
    const all: { email: string; id: unknown }[] = await ds.query('SELECT email, id FROM gx_users');
    const lookup: { email: string; id: unknown }[] = await ds.query('SELECT email, id FROM gx_users__gidx_email');
    expect(lookup.map((r) => `${r.email}→${String(r.id)}`).sort()).toEqual(all.map((r) => `${r.email}→${String(r.id)}`).sort());
  }, 60_000);

  const upsertsOf = async (ids: readonly number[], email: string, upsert: (id: number) => Promise<unknown>) => {
    expect(new Set(ids.map((id) => ds.shardOf(GxUser, id))).size).toBe(4);
    const results = await Promise.allSettled(ids.map((id) => upsert(id)));
    expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    const { rows, entries } = await owners(email);
    expect(rows).toHaveLength(1);
    expect(entries).toEqual(rows);
    expect(ids).toContain(rows[0]);
    expect((await ds.checkIndexes()).findings).toEqual([]);
    return rows[0]!;
  };

  it('lets every upsert of the same email succeed, one row owning it (the update part moves it to each new id)', async () => {
    const ids = Array.from({ length: CLIENTS }, (_, i) => 3000 + i);
    // TypeORM's upsert writes every given column in the update part, the shard key too: the row moves.
    await upsertsOf(ids, 'upsert@x', (id) => ds.getRepository(GxUser).upsert({ id, email: 'upsert@x', nick: null, name: `n${id}` }, ['email']));
    expect(await ds.getRepository(GxUser).countBy({ email: 'upsert@x' })).toBe(1);
  }, 120_000);

  it('lets every upsert of the same email succeed when the update part keeps the owner (only the name changes)', async () => {
    const ids = Array.from({ length: CLIENTS }, (_, i) => 4000 + i);
    const upsert = (id: number) => ds.createQueryBuilder().insert().into(GxUser).values({ id, email: 'kept@x', nick: null, name: `n${id}` }).orUpdate(['name'], ['email']).execute();
    const owner = await upsertsOf(ids, 'kept@x', upsert);
    const row = await ds.getRepository(GxUser).findOneByOrFail({ email: 'kept@x' });
    expect(row.id).toBe(owner);
    expect(ids.map((id) => `n${id}`)).toContain(row.name);
  }, 120_000);
  // Distinct emails never meet: no client may fail, also when every owner row lands on one shard
  // (gap locks of one index page) and the lookup rows spread over all four. One database takes
  // these 32 upserts without an error; a deadlock or a lock wait timeout here would be the layer's.
  it('lets 32 upserts of 32 different new emails, every owner on one shard, all succeed', async () => {
    const sameShard: number[] = [];
    for (let id = 5000; sameShard.length < CLIENTS; id++) if (ds.shardOf(GxUser, id) === 's1') sameShard.push(id);
    const emails = sameShard.map((id) => `distinct${id}@x`);
    const results = await Promise.allSettled(sameShard.map((id, i) => ds.getRepository(GxUser).upsert({ id, email: emails[i]!, nick: null, name: `n${id}` }, ['email'])));
    expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    for (const [i, email] of emails.entries()) expect(await owners(email)).toEqual({ rows: [sameShard[i]], entries: [sameShard[i]] });
    // Then the same emails again, each updating its own row, all at once.
    const again = await Promise.allSettled(sameShard.map((id, i) => ds.getRepository(GxUser).upsert({ id, email: emails[i]!, nick: null, name: `m${id}` }, ['email'])));
    expect(again.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    expect((await ds.getRepository(GxUser).findBy({ email: In(emails) })).map((u) => u.name).sort()).toEqual(sameShard.map((id) => `m${id}`).sort());
    expect((await ds.checkIndexes()).findings).toEqual([]);
  }, 120_000);
  // The other race: one new id with 32 different emails. Nothing serialises them before the insert
  // (their lookup rows differ): one insert wins, the others meet its row as a duplicate primary key
  // and update it, as one database's upserts do. One row is left, owning one of the emails.
  it('lets 32 upserts of one new id with 32 different emails all succeed, one row left', async () => {
    const id = 7001;
    const emails = Array.from({ length: CLIENTS }, (_, i) => `sameid${i}@x`);
    const results = await Promise.allSettled(emails.map((email) => ds.getRepository(GxUser).upsert({ id, email, nick: null, name: email }, ['id'])));
    expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    const rows = await ds.getRepository(GxUser).findBy({ id });
    expect(rows).toHaveLength(1);
    expect(emails).toContain(rows[0]!.email);
    for (const email of emails) expect((await owners(email)).entries).toEqual(email === rows[0]!.email ? [id] : []);
    expect((await ds.checkIndexes()).findings).toEqual([]);
  }, 120_000);
});

import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryFailedError } from 'typeorm';
import { ShardedDataSource } from '../packages/typeorm-sharding/src/index.js';
import { canStartMariadb, startServers, type MariadbCluster } from './support/mariadb-cluster.js';
import { GX_ENTITIES, GxUser } from './support/global-index-entities.js';

// Issue 16: 32 clients insert (then move their row to) the same email, with ids on different
// shards of two mariadbd servers. The lookup row of the email is the one place they meet: exactly
// one commits, every other gets the one-database duplicate-key error and writes nothing.

const CLIENTS = 32;
const PORTS = [3531, 3532];

describe.runIf(canStartMariadb())(`${CLIENTS} clients writing one email over two MariaDB servers`, () => {
  let cluster: MariadbCluster;
  let ds: ShardedDataSource;

  beforeAll(async () => {
    cluster = await startServers(2, { serverOptions: ['--innodb-lock-wait-timeout=5'], ports: PORTS });
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
});

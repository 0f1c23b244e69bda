import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ShardedDataSource } from '../packages/typeorm-sharding/src/index.js';
import { GX_ENTITIES, GxPurchase, GxUser, LOOKUP_ENTITIES } from './support/global-index-entities.js';
import { openFixture, type Backend, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';

// Online build of a global index added to a table that already holds rows: initialize() makes it
// write-only and says how to build it; ds.buildIndexes() backfills in chunks (resumable), verifies,
// and only then routes reads through it.

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];
const ENTITIES = [...GX_ENTITIES, ...LOOKUP_ENTITIES];
const USERS = 30;

const user = (id: number, email: string): Partial<GxUser> => ({ id, email, nick: null, name: `u${id}` });

describe.each(backends)('buildIndexes on %s', (backend) => {
  let fx: Fixture;
  let dir: string | undefined;
  const opened: ShardedDataSource[] = [];
  const warnings: string[] = [];
  const logger = { logQuery() {}, logQueryError() {}, logQuerySlow() {}, logSchemaBuild() {}, logMigration() {}, log: (level: string, message: unknown) => void (level === 'warn' && warnings.push(String(message))) };

  afterEach(async () => {
    for (const ds of opened.splice(0)) if (ds.isInitialized) await ds.destroy();
    await fx?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
    warnings.length = 0;
  });

  /** A source with rows whose lookup tables are then emptied, as if the indexes had been declared after the rows were written; reopened. */
  async function withUnbuiltIndexes(): Promise<ShardedDataSource> {
    dir = backend === 'sqlite' ? mkdtempSync(join(tmpdir(), 'tsh-build-')) : undefined;
    fx = await openFixture(backend, ENTITIES, 4, {}, { logger }, {}, (i) => (dir ? { database: join(dir, `s${i}.db`) } : {}));
    await fx.sharded.getRepository(GxUser).insert(Array.from({ length: USERS }, (_, i) => user(i + 1, `u${i + 1}@x`)));
    await fx.sharded.getRepository(GxPurchase).insert(Array.from({ length: 12 }, (_, i) => ({ id: i + 1, buyerId: 100 + (i % 3), shopId: 1, sku: null })));
    for (const name of fx.sharded.shardNames) {
      for (const table of ['gx_users__gidx_email', 'gx_purchases__glookup_buyerId']) await fx.sharded.getShardDataSource(name).query(`DELETE FROM ${table}`);
    }
    return reopen();
  }

  async function reopen(): Promise<ShardedDataSource> {
    const ds = new ShardedDataSource({ ...(fx.sharded as unknown as { shardedOptions: object }).shardedOptions, synchronize: false } as never);
    opened.push(ds);
    return ds.initialize();
  }

  const lookupReads = () => fx.physical.filter((e) => /__gidx_email|__glookup_buyerId/.test(e.sql) && /^\s*SELECT/i.test(e.sql)).length;

  it('initialises with a write-only index and a warning naming buildIndexes(); builds it in chunks, then reads use it', async () => {
    const ds = await withUnbuiltIndexes();
    expect(warnings.some((w) => /gx_users__gidx_email.*write-only.*buildIndexes\(\)/s.test(w))).toBe(true);
    expect(warnings.some((w) => /gx_purchases__glookup_buyerId.*write-only/s.test(w))).toBe(true);
    fx.physical.length = 0;
    expect((await ds.getRepository(GxUser).findOneBy({ email: 'u7@x' }))?.id).toBe(7); // scattered, still right
    expect(lookupReads()).toBe(0);
    await ds.getRepository(GxUser).insert(user(USERS + 1, 'new@x')); // maintained while write-only
    // An upsert cannot trust a missing lookup row yet (u7@x's row has none): refused, not a second u7@x.
    await expect(ds.getRepository(GxUser).upsert(user(USERS + 2, 'u7@x'), ['email'])).rejects.toThrow(/gx_users__gidx_email is still being built \(write-only\).*buildIndexes\(\)/);
    const reports = await ds.buildIndexes({ chunkSize: 7 });
    const email = reports.find((r) => r.lookupTable === 'gx_users__gidx_email')!;
    expect(email).toMatchObject({ phase: 'ready', resumed: false, chunks: 5, rows: USERS + 1, conflicts: [] });
    expect(email.repairs).toBe(USERS); // the new row had its entry already
    expect(reports.find((r) => r.lookupTable === 'gx_purchases__glookup_buyerId')).toMatchObject({ phase: 'ready', rows: 12, conflicts: [] });
    expect((await ds.checkIndexes()).findings).toEqual([]);
    fx.physical.length = 0;
    expect((await ds.getRepository(GxUser).findOneBy({ email: 'u7@x' }))?.id).toBe(7);
    expect((await ds.getRepository(GxPurchase).findBy({ buyerId: 101 })).map((p) => p.id).sort((a, b) => a - b)).toEqual([2, 5, 8, 11]);
    expect(lookupReads()).toBe(2);
    await ds.getRepository(GxUser).upsert(user(USERS + 2, 'u7@x'), ['email']); // built: the owner of u7@x is found and updated
    expect(await ds.getRepository(GxUser).countBy({ email: 'u7@x' })).toBe(1);
    // Persisted: the next process starts with the index readable and says nothing.
    warnings.length = 0;
    const next = await reopen();
    expect(warnings).toEqual([]);
    expect(await next.buildIndexes()).toEqual([]);
  });

  it.runIf(backend === 'sqlite')('keeps a write-only index write-only when a new topology version swaps the engine', async () => {
    await withUnbuiltIndexes();
    // The same source with a topology store: its version 1 is the configuration's map.
    const options = (fx.sharded as unknown as { shardedOptions: { sharding?: object } }).shardedOptions;
    const ds = new ShardedDataSource({ ...options, synchronize: false, sharding: { ...options.sharding, topology: { file: join(dir!, 'topology.db'), refreshMs: 60_000 } } } as never);
    opened.push(ds);
    await ds.initialize();
    await ds.publishTopology({ ...ds.topology.document, version: ds.topology.version + 1 }, 'same map, new version');
    await ds.topology.refresh();
    expect(ds.topology.version).toBe(2);
    fx.physical.length = 0;
    // Read through the empty lookup table, the row would not be found.
    expect((await ds.getRepository(GxUser).findOneBy({ email: 'u7@x' }))?.id).toBe(7);
    expect(lookupReads()).toBe(0);
  });

  it('resumes a build that was killed after a committed chunk, from that chunk', async () => {
    const ds = await withUnbuiltIndexes();
    let seen = 0;
    await expect(ds.buildIndexes({ chunkSize: 7, tables: ['gx_users'], onChunk: () => { if (++seen === 2) throw new Error('killed'); } })).rejects.toThrow('killed');
    const next = await reopen(); // a new process: still write-only
    expect(warnings.filter((w) => /gx_users__gidx_email.*write-only/s.test(w))).toHaveLength(2);
    const [report] = await next.buildIndexes({ chunkSize: 7, tables: ['gx_users'] });
    expect(report).toMatchObject({ lookupTable: 'gx_users__gidx_email', phase: 'ready', resumed: true, chunks: 3, rows: USERS - 14 });
    expect((await next.checkIndexes({ tables: ['gx_users'] })).findings).toEqual([]);
  });

  it('keeps the index write-only and names the values owned twice that a write let in during the build', async () => {
    const ds = await withUnbuiltIndexes();
    let other = 2;
    while (ds.shardOf(GxUser, other) === ds.shardOf(GxUser, 3)) other++;
    await ds.getRepository(GxUser).insert(user(1000 + other, 'u3@x')); // u3@x's old row has no entry yet: it goes in
    const [report] = await ds.buildIndexes({ tables: ['gx_users__gidx_email'] });
    expect(report!.phase).toBe('conflicts');
    expect(report!.conflicts.map((c) => `${c.kind} ${c.values.join()}`)).toEqual(['owned-twice u3@x']);
    fx.physical.length = 0;
    expect((await ds.getRepository(GxUser).findBy({ email: 'u3@x' })).map((u) => u.id).sort((a, b) => a - b)).toEqual([3, 1000 + other]);
    expect(lookupReads()).toBe(0);
    await ds.getRepository(GxUser).delete({ id: 1000 + other });
    expect(await ds.buildIndexes({ tables: ['gx_users'] })).toMatchObject([{ phase: 'ready', conflicts: [] }]);
  });
});

import 'reflect-metadata';
import { afterEach, describe, expect, it } from 'vitest';
import { GX_ENTITIES, GxPurchase, GxUser, LOOKUP_ENTITIES } from './support/global-index-entities.js';
import { openFixture, type Backend, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';

// ds.checkIndexes(): dangling, missing, miscounted entries and values owned twice, found and
// (with repair) fixed, never a winner picked for a value owned twice; metrics of lookups and repairs.

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];

const user = (id: number, email: string): Partial<GxUser> => ({ id, email, nick: null, name: `u${id}` });

/** Ids 1… whose users live on shards other than `of`'s. */
function idOnAnotherShard(fx: Fixture, of: number): number {
  for (let id = of + 1; id < 200; id++) if (fx.sharded.shardOf(GxUser, id) !== fx.sharded.shardOf(GxUser, of)) return id;
  throw new Error('no other shard');
}

const summary = (findings: readonly { kind: string; values: readonly unknown[] }[]) => findings.map((f) => `${f.kind} ${f.values.map(String).join('/')}`).sort();

describe.each(backends)('checkIndexes on %s', (backend) => {
  let fx: Fixture;
  afterEach(async () => fx?.close());

  it('finds nothing after ordinary writes', async () => {
    fx = await openFixture(backend, [...GX_ENTITIES, ...LOOKUP_ENTITIES], 4);
    await fx.sharded.getRepository(GxUser).insert([user(1, 'a@x'), user(2, 'b@x'), user(3, 'c@x')]);
    await fx.sharded.getRepository(GxUser).update({ id: 2 }, { email: 'bb@x' });
    await fx.sharded.getRepository(GxPurchase).insert([{ id: 1, buyerId: 5, shopId: 1, sku: 'k' }, { id: 2, buyerId: 5, shopId: 1, sku: 'k' }]);
    const report = await fx.sharded.checkIndexes({ repair: true });
    expect(report.findings).toEqual([]);
    expect(report.repairs).toEqual([]);
    expect(report.indexes.find((i) => i.lookupTable === 'gx_users__gidx_email')).toMatchObject({ rows: 3, entries: 3, findings: 0 });
  });

  it('reports dangling, missing, repointed and miscounted entries, repairs them and leaves a value owned twice alone', async () => {
    fx = await openFixture(backend, [...GX_ENTITIES, ...LOOKUP_ENTITIES], 4);
    const users = fx.sharded.getRepository(GxUser);
    const twin = idOnAnotherShard(fx, 4);
    await users.insert([user(1, 'a@x'), user(2, 'b@x'), user(3, 'c@x'), user(4, 'd@x')]);
    await fx.sharded.getRepository(GxPurchase).insert([{ id: 1, buyerId: 5, shopId: 1, sku: null }, { id: 2, buyerId: 6, shopId: 1, sku: null }]);
    const lookupOf = (table: string, value: unknown) => fx.sharded.getShardDataSource(fx.sharded.shardOf(table, value));
    const ownerOf = (id: number) => fx.sharded.getShardDataSource(fx.sharded.shardOf(GxUser, id));
    await lookupOf('gx_users__gidx_email', 'a@x').query('DELETE FROM gx_users__gidx_email WHERE email = ?', ['a@x']); // missing
    await lookupOf('gx_users__gidx_email', 'z@x').query('INSERT INTO gx_users__gidx_email (email, id) VALUES (?, ?)', ['z@x', 9]); // dangling
    await lookupOf('gx_users__gidx_email', 'c@x').query('UPDATE gx_users__gidx_email SET id = ? WHERE email = ?', [2, 'c@x']); // wrong owner
    await ownerOf(twin).query('INSERT INTO gx_users (id, email, name) VALUES (?, ?, ?)', [twin, 'd@x', 'twin']); // owned twice, behind the plugin's back
    await lookupOf('gx_purchases__glookup_buyerId', 5).query('UPDATE gx_purchases__glookup_buyerId SET gidx_refs = 3 WHERE buyerId = ?', [5]); // miscounted
    await lookupOf('gx_purchases__glookup_buyerId', 6).query('DELETE FROM gx_purchases__glookup_buyerId WHERE buyerId = ?', [6]); // missing
    const expected = ['dangling c@x', 'dangling z@x', 'miscounted 5', 'missing 6', 'missing a@x', 'missing c@x', 'owned-twice d@x'];
    const found = await fx.sharded.checkIndexes();
    expect(summary(found.findings)).toEqual(expected);
    expect(found.repairs).toEqual([]);
    expect(await users.findOneBy({ email: 'a@x' })).toBeNull(); // what a missing entry costs: the read misses the row

    const repaired = await fx.sharded.checkIndexes({ repair: true });
    expect(summary(repaired.findings)).toEqual(expected);
    expect(repaired.repairs.map((r) => `${r.finding.kind} ${r.finding.values.map(String).join('/')}: ${r.action}`).sort()).toEqual([
      'dangling c@x: deleted',
      'dangling z@x: deleted',
      'miscounted 5: recounted',
      'missing 6: inserted',
      'missing a@x: inserted',
      'missing c@x: inserted',
    ]);
    expect(summary((await fx.sharded.checkIndexes({ repair: true })).findings)).toEqual(['owned-twice d@x']);
    expect((await users.findOneBy({ email: 'a@x' }))?.id).toBe(1);
    expect((await users.findOneBy({ email: 'c@x' }))?.id).toBe(3);
    const metrics = await fx.sharded.indexMetrics.registry.getMetricsAsJSON();
    const value = (name: string, labels: Record<string, string>) =>
      metrics.find((m) => m.name === name)?.values.filter((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x)).reduce((n, v) => n + v.value, 0);
    expect(value('typeorm_sharding_index_repairs_total', { index: 'gx_users__gidx_email' })).toBe(4);
    expect(value('typeorm_sharding_index_repairs_total', { index: 'gx_purchases__glookup_buyerId', action: 'recounted' })).toBe(1);
    expect(value('typeorm_sharding_index_lookup_misses_total', { index: 'gx_users__gidx_email' })).toBe(1);
    expect(value('typeorm_sharding_index_lookup_hits_total', { index: 'gx_users__gidx_email' })).toBe(2);
  });

  it('repairs nothing a write in between made right (the finding is read again under locks)', async () => {
    fx = await openFixture(backend, GX_ENTITIES, 4);
    await fx.sharded.getRepository(GxUser).insert(user(1, 'a@x'));
    const lookup = fx.sharded.getShardDataSource(fx.sharded.shardOf('gx_users__gidx_email', 'a@x'));
    await lookup.query('DELETE FROM gx_users__gidx_email WHERE email = ?', ['a@x']);
    const { reconcileEntry } = await import('../packages/typeorm-sharding/src/indexes/index.js');
    const index = fx.sharded.shardingRules.globalIndexes.find((g) => g.lookupTable === 'gx_users__gidx_email')!;
    const dialect = backend === 'sqlite' ? 'sqlite' : 'mysql';
    const run = (work: (q: (s: string, p: readonly unknown[]) => Promise<Record<string, unknown>[]>) => Promise<unknown>) =>
      fx.sharded.transaction((em) => work((s, p) => em.query(s, [...p])));
    // The row is deleted after the check saw it missing its entry: nothing to insert any more.
    await fx.sharded.getShardDataSource(fx.sharded.shardOf(GxUser, 1)).query('DELETE FROM gx_users WHERE id = 1');
    expect(await run((q) => reconcileEntry(index, ['a@x'], 1, q, dialect))).toBe('none');
    expect(await lookup.query('SELECT * FROM gx_users__gidx_email')).toEqual([]);
  });
});

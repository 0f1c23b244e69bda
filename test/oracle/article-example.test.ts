import 'reflect-metadata';
import { afterEach, describe, expect, it } from 'vitest';
import { In } from 'typeorm';
import type { PhysicalQueryEvent, ShardingOptions } from '../../packages/typeorm-sharding/src/index.js';
import { openFixture, type Backend, type Fixture } from '../support/backends.js';
import { mariadbAvailable } from '../support/mariadb.js';
import { ArticleOrder } from '../support/oracle-entities.js';
import { asSet, describeEvents, expectPruned, inListOf, prng } from '../support/oracle.js';

// The PolarDB-X article's example of dynamic IN pruning: a table partitioned by `id mod 4`
// and `WHERE id IN (1, 2, 4, 5, 9)`. Shard 0 must receive only 4, shard 1 only 1, 5 and 9,
// shard 2 only 2, and shard 3 nothing at all. With at most 2 values per statement shard 1's
// three values take two statements: four statements in all.

const ARTICLE_IDS = ['1', '2', '4', '5', '9'];

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

async function open(backend: Backend, sharding: ShardingOptions, ids: readonly string[]): Promise<Fixture> {
  fx = await openFixture(backend, [ArticleOrder], 4, sharding);
  const rows = ids.map((id) => ({ id, amount: Number(BigInt(id) % 1000n) }));
  for (const ds of [fx.plain, fx.sharded]) {
    for (let i = 0; i < rows.length; i += 250) await ds.getRepository(ArticleOrder).insert(rows.slice(i, i + 250));
  }
  fx.physical.length = 0;
  return fx;
}

/** Each statement as (shard, the IN values it carried, sorted numerically). */
function received(events: readonly PhysicalQueryEvent[]): { shard: string; values: string[] }[] {
  return events.map((e) => ({ shard: e.shard, values: (inListOf(e) ?? []).map((v) => BigInt(v)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map(String) }));
}

/** All the values each shard received over all its statements. */
function valuesByShard(events: readonly PhysicalQueryEvent[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const { shard, values } of received(events)) (out[shard] ??= []).push(...values);
  for (const shard of Object.keys(out)) out[shard]!.sort((a, b) => Number(a) - Number(b));
  return out;
}

for (const backend of ['sqlite', 'mariadb'] as const) {
  const available = backend === 'sqlite' || (await mariadbAvailable());

  describe.runIf(available)(`the PolarDB-X article's example on ${backend}`, () => {
    it('places each row on shard id mod 4', async () => {
      const f = await open(backend, {}, ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
      for (const [i, name] of f.sharded.shardNames.entries()) {
        const rows = (await f.sharded.getShardDataSource(name).query('SELECT id FROM article_orders ORDER BY id')) as { id: unknown }[];
        const ids = rows.map((r) => Number(r.id));
        expect(ids, `rows on ${name}`).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].filter((id) => id % 4 === i));
      }
      for (const id of ARTICLE_IDS) expect(f.sharded.shardOf(ArticleOrder, id)).toBe(`s${Number(id) % 4}`);
    });

    for (const spelling of ['strings', 'numbers'] as const) {
      const values = spelling === 'strings' ? ARTICLE_IDS : (ARTICLE_IDS.map(Number) as unknown as string[]);

      it(`IN (1, 2, 4, 5, 9) with ids as ${spelling}: shard 0 gets 4, shard 1 gets 1, 5, 9, shard 2 gets 2, shard 3 nothing`, async () => {
        const f = await open(backend, {}, ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12']);
        const rows = await f.sharded.getRepository(ArticleOrder).find({ where: { id: In(values) } });
        const events = [...f.physical];
        const why = `physical:\n${describeEvents(events)}`;
        expect(asSet(rows), why).toEqual(asSet(await f.plain.getRepository(ArticleOrder).find({ where: { id: In(values) } })));
        expect(asSet(rows).map((r) => r.id)).toEqual(['1', '2', '4', '5', '9']);
        expect(valuesByShard(events), why).toEqual({ s0: ['4'], s1: ['1', '5', '9'], s2: ['2'] });
        expect(events.map((e) => e.shard).sort(), why).toEqual(['s0', 's1', 's2']);
        expect(events.some((e) => e.shard === 's3'), why).toBe(false);
      });

      it(`IN (1, 2, 4, 5, 9) with maxInValuesPerQuery 2 and ids as ${spelling}: exactly four statements`, async () => {
        const f = await open(backend, { maxInValuesPerQuery: 2 }, ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12']);
        const rows = await f.sharded.getRepository(ArticleOrder).find({ where: { id: In(values) } });
        const events = [...f.physical];
        const why = `physical:\n${describeEvents(events)}`;
        expect(asSet(rows).map((r) => r.id), why).toEqual(['1', '2', '4', '5', '9']);
        expect(events.length, why).toBe(4);
        expect(valuesByShard(events), why).toEqual({ s0: ['4'], s1: ['1', '5', '9'], s2: ['2'] });
        const byShard = received(events);
        expect(byShard.filter((s) => s.shard === 's0').map((s) => s.values), why).toEqual([['4']]);
        expect(byShard.filter((s) => s.shard === 's2').map((s) => s.values), why).toEqual([['2']]);
        // shard 1's three values in two batches of at most two ({1, 5} and {9} in list order)
        const s1 = byShard.filter((s) => s.shard === 's1').map((s) => s.values);
        expect(s1.map((b) => b.length).sort(), why).toEqual([1, 2]);
        expect(s1.flat().sort(), why).toEqual(['1', '5', '9']);
        expect([...s1].sort((a, b) => b.length - a.length), why).toEqual([['1', '5'], ['9']]);
      });
    }

    it('an IN of 1,000 values with maxInValuesPerQuery 100: Σ ceil(n_s / 100) statements, each value once on shard id mod 4', async () => {
      const rand = prng(2024);
      // Skewed so that the shards hold different numbers of values: ids ≡ 1 (mod 4) are three times as likely.
      const set = new Set<string>();
      while (set.size < 1000) {
        const id = 1 + Math.floor(rand() * 50_000);
        if (id % 4 === 1 || rand() < 0.34) set.add(String(id));
      }
      const ids = [...set];
      const stored = ids.filter((_, i) => i % 3 !== 0); // two thirds of the values exist
      const f = await open(backend, { maxInValuesPerQuery: 100 }, stored);
      const rows = await f.sharded.getRepository(ArticleOrder).find({ where: { id: In(ids) } });
      const events = [...f.physical];
      expect(asSet(rows)).toEqual(asSet(await f.plain.getRepository(ArticleOrder).find({ where: { id: In(ids) } })));
      expect(rows.length).toBe(stored.length);

      const perShard = [0, 1, 2, 3].map((s) => ids.filter((id) => Number(id) % 4 === s).length);
      const expectedStatements = perShard.reduce((sum, n) => sum + Math.ceil(n / 100), 0);
      const why = `values per shard ${JSON.stringify(perShard)}; physical:\n${describeEvents(events.map((e) => ({ ...e, sql: e.sql.slice(0, 120) })))}`;
      expect(events.length, why).toBe(expectedStatements);
      for (const s of [0, 1, 2, 3]) {
        expect(events.filter((e) => e.shard === `s${s}`).length, why).toBe(Math.ceil(perShard[s]! / 100));
      }
      for (const e of events) {
        for (const v of inListOf(e) ?? []) expect(e.shard, `value ${v}`).toBe(`s${Number(v) % 4}`);
      }
      expectPruned(events, ids, (v) => `s${Number(v) % 4}`, 100, 'IN of 1,000 values');
    });
  });
}

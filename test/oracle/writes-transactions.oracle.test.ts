import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Column, DataSource, Entity, In, MoreThanOrEqual, PrimaryColumn, type EntityManager } from 'typeorm';
import { Broadcast, Sharded, ShardKey, ShardedDataSource } from '../../packages/typeorm-sharding/src/index.js';
import { mariadbAvailable } from '../support/mariadb.js';
import { openTwoServerPair } from '../support/backends.js';

// Issue 11: the differential oracle of the write path. Random mixes of writes — inserts that may
// collide, updates by key and scattered ones, deletes, writes of a broadcast table — alone and in
// transactions that commit or roll back (with nested ones, and statements that fail inside and
// are caught) run on a sharded data source and on one plain TypeORM DataSource; afterwards every
// table holds the same rows, every broadcast copy included, and the same statements failed.
// Sources: SQLite shards in memory (committed one by one), SQLite shard files (attached to one
// connection), MariaDB shards on two servers (XA two-phase commit).

@Entity('wo_accounts')
@Sharded()
class Account {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column('int') balance!: number;
}

@Entity('wo_regions')
@Broadcast()
class Region {
  @PrimaryColumn('int') id!: number;
  @Column('int') qty!: number;
}

type Write =
  | { readonly k: 'insert'; readonly ids: readonly number[]; readonly balance: number }
  | { readonly k: 'increment'; readonly id: number; readonly delta: number }
  | { readonly k: 'scattered'; readonly min: number; readonly delta: number }
  | { readonly k: 'delete'; readonly ids: readonly number[] }
  | { readonly k: 'region-insert'; readonly id: number; readonly qty: number }
  | { readonly k: 'region-update'; readonly id: number; readonly qty: number }
  | { readonly k: 'region-delete'; readonly id: number };
type Step = Write | { readonly k: 'tx'; readonly body: readonly Step[]; readonly end: 'commit' | 'rollback' };

const idArb = fc.integer({ min: 1, max: 40 });
const writeArb: fc.Arbitrary<Write> = fc.oneof(
  fc.record({ k: fc.constant('insert' as const), ids: fc.array(idArb, { minLength: 1, maxLength: 5 }), balance: fc.integer({ min: 0, max: 50 }) }),
  fc.record({ k: fc.constant('increment' as const), id: idArb, delta: fc.integer({ min: -5, max: 5 }) }),
  fc.record({ k: fc.constant('scattered' as const), min: fc.integer({ min: 0, max: 60 }), delta: fc.integer({ min: -3, max: 3 }) }),
  fc.record({ k: fc.constant('delete' as const), ids: fc.array(idArb, { minLength: 1, maxLength: 4 }) }),
  fc.record({ k: fc.constant('region-insert' as const), id: fc.integer({ min: 1, max: 5 }), qty: fc.integer({ min: 0, max: 9 }) }),
  fc.record({ k: fc.constant('region-update' as const), id: fc.integer({ min: 1, max: 5 }), qty: fc.integer({ min: 0, max: 9 }) }),
  fc.record({ k: fc.constant('region-delete' as const), id: fc.integer({ min: 1, max: 5 }) }),
);
const txArb = (inner: fc.Arbitrary<Step>) => fc.record({ k: fc.constant('tx' as const), body: fc.array(inner, { minLength: 1, maxLength: 5 }), end: fc.constantFrom('commit' as const, 'rollback' as const) });
const stepArb: fc.Arbitrary<Step> = fc.oneof({ weight: 3, arbitrary: writeArb }, { weight: 2, arbitrary: txArb(fc.oneof({ weight: 4, arbitrary: writeArb }, { weight: 1, arbitrary: txArb(writeArb) })) });

/** Runs one write; a statement the database refuses (a duplicate key) is caught and reported. */
async function write(em: EntityManager, w: Write): Promise<string> {
  try {
    switch (w.k) {
      case 'insert':
        await em.insert(Account, w.ids.map((id) => ({ id, balance: w.balance })));
        break;
      case 'increment':
        await em.increment(Account, { id: w.id }, 'balance', w.delta);
        break;
      case 'scattered':
        await em.increment(Account, { balance: MoreThanOrEqual(w.min) }, 'balance', w.delta);
        break;
      case 'delete':
        await em.delete(Account, { id: In([...w.ids]) });
        break;
      case 'region-insert':
        await em.insert(Region, { id: w.id, qty: w.qty });
        break;
      case 'region-update':
        await em.update(Region, { id: w.id }, { qty: w.qty });
        break;
      case 'region-delete':
        await em.delete(Region, { id: w.id });
        break;
    }
    return 'ok';
  } catch {
    return 'failed';
  }
}

class Rollback extends Error {}

/** Runs the steps, returning what each write did; a transaction ending in rollback throws out of its callback. */
async function run(em: EntityManager, steps: readonly Step[], out: string[]): Promise<void> {
  for (const step of steps) {
    if (step.k !== 'tx') {
      out.push(await write(em, step));
      continue;
    }
    await em
      .transaction(async (inner) => {
        await run(inner, step.body, out);
        if (step.end === 'rollback') throw new Rollback();
      })
      .then(() => out.push('committed'), (error: unknown) => out.push(error instanceof Rollback ? 'rolled back' : `error ${String(error)}`));
  }
}

interface Pair {
  readonly sharded: ShardedDataSource;
  readonly plain: DataSource;
  close(): Promise<void>;
}

const SHARDS = 4;

async function openPair(kind: 'sqlite-memory' | 'sqlite-files' | 'mariadb-servers'): Promise<Pair> {
  const entities = [Account, Region];
  // One MariaDB as two servers: every transaction over both is two-phase (two connections, two XA branches).
  if (kind === 'mariadb-servers') return openTwoServerPair(`tsh_${process.pid}_wo`, entities, SHARDS);
  const dir = kind === 'sqlite-files' ? mkdtempSync(join(tmpdir(), 'tsh-wo-')) : undefined;
  const sharded = new ShardedDataSource({
    type: 'better-sqlite3',
    entities,
    synchronize: true,
    shards: Array.from({ length: SHARDS }, (_, i) => ({ name: `s${i}`, database: dir ? join(dir, `s${i}.db`) : ':memory:' })),
  });
  const plain = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities, synchronize: true });
  await sharded.initialize();
  await plain.initialize();
  return {
    sharded,
    plain,
    close: async () => {
      await sharded.destroy();
      await plain.destroy();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every table's rows, in key order; broadcast copies read from each shard's own DataSource. */
async function contents(pair: Pair): Promise<{ sharded: unknown; plain: unknown; copies: unknown[] }> {
  const accounts = async (ds: DataSource) => (await ds.getRepository(Account).find({ order: { id: 'ASC' } })).map((a) => `${a.id}:${a.balance}`);
  const regions = async (ds: DataSource) => (await ds.getRepository(Region).find({ order: { id: 'ASC' } })).map((r) => `${r.id}:${r.qty}`);
  const copies = await Promise.all(pair.sharded.shardNames.map((s) => pair.sharded.getShardDataSource(s).query('SELECT id, qty FROM wo_regions ORDER BY id')));
  return {
    sharded: { accounts: await accounts(pair.sharded), regions: await regions(pair.sharded) },
    plain: { accounts: await accounts(pair.plain), regions: await regions(pair.plain) },
    copies: copies.map((rows: { id: number; qty: number }[]) => rows.map((r) => `${r.id}:${r.qty}`)),
  };
}

const RUNS = { 'sqlite-memory': 60, 'sqlite-files': 40, 'mariadb-servers': 25 } as const;

for (const kind of ['sqlite-memory', 'sqlite-files', 'mariadb-servers'] as const) {
  const available = kind !== 'mariadb-servers' || (await mariadbAvailable());
  describe.runIf(available)(`writes and transactions oracle: ${kind}`, () => {
    let pair: Pair;
    beforeAll(async () => {
      pair = await openPair(kind);
    }, 60_000);
    afterAll(async () => pair?.close());

    it('random writes, alone and in committed / rolled-back / nested transactions: the same rows everywhere, the same failures', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 10 }), async (steps) => {
          for (const ds of [pair.sharded, pair.plain]) {
            await ds.query('DELETE FROM wo_accounts');
            await ds.query('DELETE FROM wo_regions');
          }
          const outcomes = { sharded: [] as string[], plain: [] as string[] };
          await run(pair.sharded.manager, steps, outcomes.sharded);
          await run(pair.plain.manager, steps, outcomes.plain);
          expect(outcomes.sharded).toEqual(outcomes.plain);
          const { sharded, plain, copies } = await contents(pair);
          expect(sharded).toEqual(plain);
          for (const copy of copies) expect(copy).toEqual((plain as { regions: string[] }).regions);
        }),
        { numRuns: RUNS[kind], seed: 20_111 },
      );
    }, 120_000);
  });
}

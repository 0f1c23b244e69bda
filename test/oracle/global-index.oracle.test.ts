import 'reflect-metadata';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Column, DataSource, Entity, In, PrimaryColumn, QueryFailedError, type EntityManager } from 'typeorm';
import { Sharded, ShardKey, ShardedDataSource } from '../../packages/typeorm-sharding/src/index.js';
import { mariadbAvailable } from '../support/mariadb.js';
import { openTwoServerPair } from '../support/backends.js';

// Issue 16, Tests bullet 3: the differential oracle with global indexes. Random writes to users
// sharded by id with a globally unique email and a lookup index on grp — inserts that may repeat
// an id or an email (in another spelling too), value changes that may collide, deletes by key and
// by email, upserts on email (insert, update in place, move to a new id, skip), alone and in
// transactions that commit or roll back — run on a sharded source and on
// one plain DataSource: the same statements fail with the same error class and code, the same
// rows remain, reads by email and by grp agree, and the checker finds the indexes exact.
// Sources: SQLite shards in memory; MariaDB shards on one server seen as two (XA).

@Entity('og_users')
@Sharded({ lookups: ['grp'] })
class OgUser {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column({ type: 'varchar', length: 40, unique: true }) email!: string;
  @Column('int') grp!: number;
}

type Write =
  | { readonly k: 'insert'; readonly rows: readonly { id: number; email: string; grp: number }[] }
  | { readonly k: 'set-email'; readonly id: number; readonly email: string }
  | { readonly k: 'set-grp'; readonly id: number; readonly grp: number }
  | { readonly k: 'delete'; readonly ids: readonly number[] }
  | { readonly k: 'delete-email'; readonly email: string }
  | { readonly k: 'upsert' | 'upsert-grp' | 'insert-ignore'; readonly rows: readonly { id: number; email: string; grp: number }[] };
type Step = Write | { readonly k: 'tx'; readonly body: readonly Write[]; readonly end: 'commit' | 'rollback' };

const EMAILS = ['a@x', 'b@x', 'c@x', 'd@x', 'e@x', 'A@x'];
const idArb = fc.integer({ min: 1, max: 12 });
const emailArb = fc.constantFrom(...EMAILS);
const grpArb = fc.integer({ min: 1, max: 3 });
const writeArb: fc.Arbitrary<Write> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ k: fc.constant('insert' as const), rows: fc.array(fc.record({ id: idArb, email: emailArb, grp: grpArb }), { minLength: 1, maxLength: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('set-email' as const), id: idArb, email: emailArb }) },
  fc.record({ k: fc.constant('set-grp' as const), id: idArb, grp: grpArb }),
  fc.record({ k: fc.constant('delete' as const), ids: fc.array(idArb, { minLength: 1, maxLength: 3 }) }),
  fc.record({ k: fc.constant('delete-email' as const), email: emailArb }),
  // Upserts on the global key email: insert, update (moving the row when the id differs), or skip.
  { weight: 3, arbitrary: fc.record({ k: fc.constantFrom('upsert' as const, 'upsert-grp' as const, 'insert-ignore' as const), rows: fc.array(fc.record({ id: idArb, email: emailArb, grp: grpArb }), { minLength: 1, maxLength: 3 }) }) },
);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: writeArb },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('tx' as const), body: fc.array(writeArb, { minLength: 1, maxLength: 4 }), end: fc.constantFrom('commit' as const, 'rollback' as const) }) },
);

/** One write; a refused one is reported by its error class and driver code. */
async function write(em: EntityManager, w: Write): Promise<string> {
  try {
    switch (w.k) {
      case 'insert':
        await em.insert(OgUser, [...w.rows]);
        break;
      case 'set-email':
        await em.update(OgUser, { id: w.id }, { email: w.email });
        break;
      case 'set-grp':
        await em.update(OgUser, { id: w.id }, { grp: w.grp });
        break;
      case 'delete':
        await em.delete(OgUser, { id: In([...w.ids]) });
        break;
      case 'delete-email':
        await em.delete(OgUser, { email: w.email });
        break;
      case 'upsert':
        await em.upsert(OgUser, [...w.rows], ['email']);
        break;
      case 'upsert-grp':
        await em.createQueryBuilder().insert().into(OgUser).values([...w.rows]).orUpdate(['grp'], ['email']).execute();
        break;
      case 'insert-ignore':
        await em.createQueryBuilder().insert().into(OgUser).values([...w.rows]).orIgnore().execute();
        break;
    }
    return 'ok';
  } catch (error) {
    const kind = error instanceof QueryFailedError ? "QueryFailedError" : (error as Error).constructor.name;
    return `${kind} ${String((error as { driverError?: { code?: string } }).driverError?.code)}`;
  }
}

class Rollback extends Error {}

async function run(em: EntityManager, steps: readonly Step[], out: string[]): Promise<void> {
  for (const step of steps) {
    if (step.k !== 'tx') {
      out.push(await write(em, step));
      continue;
    }
    await em
      .transaction(async (inner) => {
        for (const w of step.body) out.push(await write(inner, w));
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

async function openPair(kind: 'sqlite' | 'mariadb'): Promise<Pair> {
  const entities = [OgUser];
  if (kind === 'mariadb') return openTwoServerPair(`tsh_${process.pid}_og`, entities, 4);
  const sharded = new ShardedDataSource({ type: 'better-sqlite3', entities, synchronize: true, shards: Array.from({ length: 4 }, (_, i) => ({ name: `s${i}`, database: ':memory:' })) });
  const plain = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities, synchronize: true });
  await sharded.initialize();
  await plain.initialize();
  return { sharded, plain, close: async () => { await sharded.destroy(); await plain.destroy(); } };
}

const rowsOf = async (ds: DataSource) => (await ds.getRepository(OgUser).find({ order: { id: 'ASC' } })).map((u) => `${u.id}:${u.email}:${u.grp}`);
const RUNS = { sqlite: 40, mariadb: 15 } as const;

for (const kind of ['sqlite', 'mariadb'] as const) {
  const available = kind === 'sqlite' || (await mariadbAvailable());
  describe.runIf(available)(`global index oracle: ${kind}`, () => {
    let pair: Pair;
    beforeAll(async () => {
      pair = await openPair(kind);
    }, 60_000);
    afterAll(async () => pair?.close());

    it('random writes with unique violations: the same failures, the same rows, the same reads by email and grp, exact indexes', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 8 }), async (steps) => {
          for (const ds of [pair.sharded, pair.plain]) await ds.query('DELETE FROM og_users');
          const outcomes = { sharded: [] as string[], plain: [] as string[] };
          await run(pair.sharded.manager, steps, outcomes.sharded);
          await run(pair.plain.manager, steps, outcomes.plain);
          expect(outcomes.sharded).toEqual(outcomes.plain);
          expect(await rowsOf(pair.sharded)).toEqual(await rowsOf(pair.plain));
          for (const [a, b] of [[pair.sharded, pair.plain]] as const) {
            const byEmail = async (ds: DataSource) => (await ds.getRepository(OgUser).find({ where: { email: In(EMAILS.slice(0, 3)) }, order: { id: 'ASC' } })).map((u) => u.id);
            const byGrp = async (ds: DataSource) => (await ds.getRepository(OgUser).find({ where: { grp: 2 }, order: { id: 'ASC' } })).map((u) => u.id);
            // One value at a time, twice: the second read goes to the owner the first one found
            // (OwnerMemory); earlier runs' owners are stale guesses by now.
            const oneByOne = async (ds: DataSource) => {
              const found: unknown[] = [];
              for (let i = 0; i < 2; i++) for (const email of EMAILS) found.push((await ds.getRepository(OgUser).findOneBy({ email }))?.id ?? null);
              return found;
            };
            expect(await byEmail(a)).toEqual(await byEmail(b));
            expect(await oneByOne(a)).toEqual(await oneByOne(b));
            expect(await byGrp(a)).toEqual(await byGrp(b));
          }
          expect((await pair.sharded.checkIndexes()).findings).toEqual([]);
        }),
        { numRuns: RUNS[kind], seed: 20_161 },
      );
    }, 120_000);
  });
}

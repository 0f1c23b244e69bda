import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Sharded, ShardKey } from '../packages/typeorm-sharding/src/index.js';
import { openFixture, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';

// A streamed read (a deep page on MySQL) keeps one connection per stream until the merge has
// read it, and the merge needs every stream's first row. A read needing more connections than
// its server's pool has once waited forever (the first test hung): it is read in full instead.
// The others check that concurrent streamed reads sharing a small pool finish with their pages
// and that a stream stopped early gives its connections back.

@Entity('sc_rows')
@Sharded()
class Item {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column('int') v!: number;
}

const available = await mariadbAvailable();
const ROWS = Array.from({ length: 3000 }, (_, i) => ({ id: i + 1, v: (i * 37) % 101 }));
/** Deep enough to stream (streamThreshold 10), windows off: the plain streamed path. */
const page = (ds: Fixture['plain'], skip: number) => ds.getRepository(Item).find({ order: { v: 'ASC', id: 'ASC' }, skip, take: 7 });

/** Fails instead of hanging the suite. */
function withinSeconds<T>(seconds: number, work: Promise<T>): Promise<T> {
  return Promise.race([work, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`still waiting after ${seconds} s: the read is stuck`)), seconds * 1000))]);
}

describe.runIf(available)('streamed reads and the server pool', () => {
  const fixtures: Fixture[] = [];
  const open = async (shards: number, poolSize: number, coalesce: false | { maxBranches: number }) => {
    const fx = await openFixture('mariadb', [Item], shards, { coalesce, streamThreshold: 10, pageWindows: false }, { poolSize });
    fixtures.push(fx);
    await fx.sharded.getRepository(Item).insert(ROWS);
    await fx.plain.getRepository(Item).insert(ROWS);
    fx.roundTrips.length = 0;
    return fx;
  };
  let small: Fixture;
  let fitting: Fixture;
  beforeAll(async () => {
    // 8 shards of one server, a pool of 3: one statement per shard needs 8 connections at once.
    small = await open(8, 3, false);
    // 6 shards, 2 per statement: 3 streams per read, a pool of 4.
    fitting = await open(6, 4, { maxBranches: 2 });
  });
  afterAll(async () => {
    for (const fx of fixtures) await fx.close();
  });

  it('a read needing more connections than the pool has is read in full, with the right page', async () => {
    expect(await withinSeconds(10, page(small.sharded, 1500))).toEqual(await page(small.plain, 1500));
    expect(small.roundTrips).toHaveLength(8);
  });

  it('concurrent streamed reads that together need more than the pool all finish, each with its page', async () => {
    const skips = Array.from({ length: 12 }, (_, i) => 1000 + 97 * i);
    const got = await withinSeconds(20, Promise.all(skips.map((skip) => page(fitting.sharded, skip))));
    for (let i = 0; i < skips.length; i++) expect(got[i]).toEqual(await page(fitting.plain, skips[i]!));
  });

  it('a streamed read stopped early gives every connection back', async () => {
    const stream = await fitting.sharded.getRepository(Item).createQueryBuilder('i').orderBy('i.v', 'ASC').addOrderBy('i.id', 'ASC').skip(1200).take(500).stream();
    const first: unknown[] = [];
    for await (const row of stream) {
      first.push(row);
      if (first.length === 3) break;
    }
    expect(first).toHaveLength(3);
    // The pool (4) is whole again: another streamed read of 3 connections finishes.
    expect(await withinSeconds(10, page(fitting.sharded, 2000))).toEqual(await page(fitting.plain, 2000));
  });
});

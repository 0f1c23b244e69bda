import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Column, DataSource, Entity, PrimaryColumn, type Logger } from 'typeorm';
import { HintReader } from '../packages/typeorm-sharding/src/router/hints/hint-reader.js';
import { hintNames } from '../packages/typeorm-sharding/src/router/hints/hint.js';

// Where TypeORM puts the `comment` find option and QueryBuilder `.comment()`: the router reads
// routing hints from exactly that text.

@Entity('hint_rows')
class HintRow {
  @PrimaryColumn('int') id!: number;
  @Column('varchar') name!: string;
}

describe('routing hints written through TypeORM', () => {
  const seen: string[] = [];
  const logger: Logger = {
    logQuery: (query) => void seen.push(query),
    logQueryError: () => undefined,
    logQuerySlow: () => undefined,
    logSchemaBuild: () => undefined,
    logMigration: () => undefined,
    log: () => undefined,
  };
  const ds = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: [HintRow], synchronize: true, logging: ['query'], logger });
  const reader = new HintReader(() => undefined);
  const last = () => seen[seen.length - 1]!;

  beforeAll(async () => {
    await ds.initialize();
    await ds.getRepository(HintRow).insert({ id: 1, name: 'a' });
  });
  afterAll(() => ds.destroy());

  it('reads the find option `comment`', async () => {
    await ds.getRepository(HintRow).find({ where: { id: 1 }, comment: 'FORCE_MASTER' });
    expect(last()).toMatch(/^\/\* FORCE_MASTER \*\/ SELECT/);
    expect(hintNames(reader.hintsOf(last()))).toEqual(['FORCE_MASTER']);
  });

  it('reads QueryBuilder .comment(), several hints in one comment', async () => {
    await ds.getRepository(HintRow).createQueryBuilder('r').comment('FORCE_SLAVE ROUTE_STICKY').where('r.id = :id', { id: 1 }).getMany();
    expect(hintNames(reader.hintsOf(last()))).toEqual(['FORCE_SLAVE', 'ROUTE_STICKY']);
  });

  it('reads a comment on an update, and leaves an ordinary comment alone', async () => {
    await ds.createQueryBuilder().update(HintRow).set({ name: 'b' }).where('id = :id', { id: 1 }).comment('CONSISTENT_READ').execute();
    expect(hintNames(reader.hintsOf(last()))).toEqual(['CONSISTENT_READ']);
    await ds.getRepository(HintRow).find({ comment: 'dashboard: list rows' });
    expect(reader.hintsOf(last()).key).toBe('');
  });

  it("survives TypeORM's scrubbing of `*/` inside a comment", async () => {
    await ds.getRepository(HintRow).find({ comment: 'FORCE_MASTER */ DROP TABLE x; /*' });
    const parsed = reader.hintsOf(last());
    expect(parsed.forceMaster).toBe(true);
  });
});

import 'reflect-metadata';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Column, CreateDateColumn, DeleteDateColumn, Entity, PrimaryColumn, VersionColumn, type DataSource } from 'typeorm';
import { Sharded, ShardKey, UnsupportedShardingError } from '../packages/typeorm-sharding/src/index.js';
import { openFixture, type Backend, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';

// Issue 8, item 4: TypeORM re-reads the rows it inserted (defaults, create dates, versions)
// with `WHERE id = ? OR id = ? …` and maps the rows back to the entities by position. Across
// shards the rows arrive shard by shard; the merge must return them in the order the WHERE
// lists them, or each entity is given another row's values (its id included).

@Entity('notes')
@Sharded()
class Note {
  @PrimaryColumn('int')
  @ShardKey()
  id!: number;

  @Column('varchar', { length: 20, default: 'draft' })
  status!: string;

  @CreateDateColumn({ type: 'datetime' })
  createdAt!: Date;

  @VersionColumn({ type: 'int' })
  version!: number;

  @Column('varchar', { length: 20 })
  title!: string;

  /** A default that differs per row (MariaDB returns it with INSERT … RETURNING, SQLite re-reads it). */
  @Column('varchar', { length: 40, default: () => (backendOfRun === 'mariadb' ? '(UUID())' : '(lower(hex(randomblob(8))))') })
  token!: string;
}

/**
 * Soft-deletable, with a composite key one column of which is the shard key: TypeORM re-reads
 * with `WHERE ((a = ? AND b = ?) OR …) AND (deletedAt IS NULL)` (issue 14).
 */
@Entity('soft_notes')
@Sharded()
class SoftNote {
  @PrimaryColumn('int')
  @ShardKey()
  id!: number;

  @PrimaryColumn('int')
  part!: number;

  @Column('varchar', { length: 20, default: 'draft' })
  status!: string;

  @CreateDateColumn({ type: 'datetime' })
  createdAt!: Date;

  @VersionColumn({ type: 'int' })
  version!: number;

  @DeleteDateColumn({ type: 'datetime', nullable: true })
  deletedAt!: Date | null;

  @Column('varchar', { length: 20 })
  title!: string;
}

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];
/** The backend the entity is being synchronized for (its default expression is dialect SQL). */
let backendOfRun: Backend = 'sqlite';

describe.each(backends)('insert() and save() of several entities keep each entity its own row (%s)', (backend) => {
  let fx: Fixture | undefined;
  beforeEach(() => {
    backendOfRun = backend;
  });
  afterEach(async () => {
    await fx?.close();
    fx = undefined;
  });

  const check = async (ds: DataSource, notes: Note[], ids: number[]) => {
    expect(notes.map((n) => n.id)).toEqual(ids);
    for (const note of notes) {
      const row = await ds.getRepository(Note).findOneByOrFail({ id: note.id });
      expect({ id: note.id, title: note.title, status: note.status, version: note.version, token: note.token }).toEqual({ id: row.id, title: row.title, status: row.status, version: row.version, token: row.token });
      expect(note.createdAt).toBeInstanceOf(Date);
    }
  };

  it.each([
    ['ascending ids', [1, 2, 3, 4, 5, 6, 7, 8]],
    ['ids in no order', [17, 3, 42, 8, 25, 1, 30, 12]],
  ])('insert([...]) with %s', async (_label, ids) => {
    fx = await openFixture(backend, [Note], 4);
    const notes = ids.map((id) => Object.assign(new Note(), { id, title: `t${id}` }));
    fx.physical.length = 0;
    await fx.sharded.getRepository(Note).insert(notes);
    expect(new Set(fx.physical.map((e) => e.shard)).size, 'the rows must land on several shards').toBeGreaterThan(1);
    await check(fx.sharded, notes, ids);
  });

  it('save([...]) of new entities, then of changed ones', async () => {
    fx = await openFixture(backend, [Note], 4);
    const ids = [9, 2, 14, 5, 11, 7];
    const notes = ids.map((id) => Object.assign(new Note(), { id, title: `t${id}` }));
    await fx.sharded.getRepository(Note).save(notes);
    await check(fx.sharded, notes, ids);
    for (const note of notes) note.title = `changed ${note.id}`;
    await fx.sharded.getRepository(Note).save(notes);
    await check(fx.sharded, notes, ids);
    expect(notes.every((n) => n.version === 2)).toBe(true);
  });

  it.each([
    ['one key column', (id: number) => ({ id, part: 1 })],
    ['a composite key', (id: number) => ({ id, part: id % 3 })],
  ])('insert([...]) of a soft-deletable entity (%s): each entity its own row, identifiers and generated maps as on one database', async (_label, keyOf) => {
    fx = await openFixture(backend, [Note, SoftNote], 4);
    const ids = [17, 3, 42, 8, 25, 1, 30, 12];
    const make = () => ids.map((id) => Object.assign(new SoftNote(), { ...keyOf(id), title: `t${id}`, status: id % 2 ? 'odd' : 'even' }));
    const [plainNotes, shardedNotes] = [make(), make()];
    const plain = await fx.plain.getRepository(SoftNote).insert(plainNotes);
    fx.physical.length = 0;
    const sharded = await fx.sharded.getRepository(SoftNote).insert(shardedNotes);
    expect(new Set(fx.physical.map((e) => e.shard)).size, 'the rows must land on several shards').toBeGreaterThan(1);
    expect(sharded.identifiers).toEqual(plain.identifiers);
    const masked = (maps: readonly Record<string, unknown>[]) => maps.map((m) => ({ ...m, createdAt: m.createdAt instanceof Date }));
    expect(masked(sharded.generatedMaps)).toEqual(masked(plain.generatedMaps));
    const fields = (n: SoftNote) => ({ id: n.id, part: n.part, title: n.title, status: n.status, version: n.version, deletedAt: n.deletedAt });
    expect(shardedNotes.map(fields)).toEqual(plainNotes.map(fields));
    for (const note of shardedNotes) {
      const row = await fx.sharded.getRepository(SoftNote).findOneByOrFail({ id: note.id, part: note.part });
      expect(fields(note)).toEqual(fields(row));
      expect(note.createdAt.getTime()).toBe(row.createdAt.getTime());
    }
  });

  it('insert().orIgnore() over several shards that skips a row: as on one database, or (MariaDB RETURNING, order unknown) refused and undone', async () => {
    fx = await openFixture(backend, [Note, SoftNote], 4);
    const ids = [17, 3, 42, 8, 25, 1, 30, 12];
    const rows = () => ids.map((id) => Object.assign(new SoftNote(), { id, part: 1, title: `t${id}` }));
    const run = async (ds: DataSource) => {
      await ds.getRepository(SoftNote).insert({ id: 42, part: 1, title: 'there' });
      const notes = rows();
      const result = await ds.createQueryBuilder().insert().into(SoftNote).values(notes).orIgnore().execute().then((r) => r, (e: unknown) => e as Error);
      return { result, notes, count: await ds.getRepository(SoftNote).count() };
    };
    const plain = await run(fx.plain);
    const sharded = await run(fx.sharded);
    if (backend === 'mariadb') {
      expect(sharded.result).toBeInstanceOf(UnsupportedShardingError);
      expect(sharded.count).toBe(1);
      expect(plain.count).toBe(ids.length);
    } else {
      expect(sharded.result).not.toBeInstanceOf(Error);
      expect(sharded.count).toBe(plain.count);
      const fields = (n: SoftNote) => ({ id: n.id, title: n.title, status: n.status, version: n.version });
      expect(sharded.notes.map(fields)).toEqual(plain.notes.map(fields));
    }
  });
});

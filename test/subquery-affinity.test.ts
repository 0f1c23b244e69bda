import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Column, DataSource, Entity, PrimaryColumn } from 'typeorm';
import { Sharded, ShardKey, UnsupportedShardingError } from '../packages/typeorm-sharding/src/index.js';
import { sqliteAffinitiesAgree, type Affinity } from '../packages/typeorm-sharding/src/plan/subquery/pulled-binding.js';
import { openFixture, type Fixture } from './support/backends.js';

// SQLite compares `x IN (SELECT y …)` under the type affinities of x and y, but a list of values
// has none: a pulled-out subquery is exact only where both convert alike. The rule the planner
// applies (`sqliteAffinitiesAgree`) is checked here against SQLite itself, exhaustively, and
// then end to end: every pair of column affinities is answered as one database answers it, or
// refused.

/** Stored values of every storage class, and text that looks like numbers in several ways. */
const VALUES = ["'5'", "'05'", '5', '5.0', "'5.0'", "' 5'", "'1e1'", '10', "'10'", "'abc'", "x'35'", 'NULL'];
/** Column declarations by affinity: N numeric (three kinds), T text, B blob (no type). */
const DECLARED: Readonly<Record<string, { affinity: Affinity; type: string }>> = {
  integer: { affinity: 'N', type: 'INTEGER' },
  real: { affinity: 'N', type: 'REAL' },
  numeric: { affinity: 'N', type: 'NUMERIC' },
  text: { affinity: 'T', type: 'TEXT' },
  blob: { affinity: 'B', type: '' },
};

/** The better-sqlite3 calls the first test makes (the package ships no types). */
interface SqliteStatement {
  get(...parameters: unknown[]): unknown;
  safeIntegers(on: boolean): SqliteStatement;
}
interface SqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
}

describe('SQLite affinity of pulled-out subquery values', () => {
  it('sqliteAffinitiesAgree says "exact" only where SQLite converts a list of values as it converts the subquery\'s column', async () => {
    const ds = await new DataSource({ type: 'better-sqlite3', database: ':memory:' }).initialize();
    const db = (ds.driver as unknown as { databaseConnection: SqliteDatabase }).databaseConnection;
    const sides: [string, { affinity: Affinity; type: string | undefined }][] = [...Object.entries(DECLARED), ['expression', { affinity: 'X', type: undefined }]];
    let exactPairs = 0;
    for (const [, left] of sides) {
      for (const [, right] of sides) {
        db.exec('DROP TABLE IF EXISTS l; DROP TABLE IF EXISTS r;');
        db.exec(`CREATE TABLE l (x ${left.type ?? ''}); CREATE TABLE r (y ${right.type ?? ''})`);
        const lhs = left.type === undefined ? '(+x)' : 'x';
        const rhs = right.type === undefined ? '(+y)' : 'y';
        const agree = sqliteAffinitiesAgree(left.affinity, right.affinity);
        if (agree) exactPairs++;
        for (const lv of VALUES) {
          for (const rv of VALUES) {
            db.exec(`DELETE FROM l; DELETE FROM r; INSERT INTO l VALUES (${lv}); INSERT INTO r VALUES (${rv})`);
            const value = (db.prepare(`SELECT ${rhs} AS v FROM r`).safeIntegers(true).get() as { v: unknown }).v;
            const count = (sql: string, ...params: unknown[]) => (db.prepare(sql).get(...params) as { c: number }).c;
            const subquery = [count(`SELECT COUNT(*) AS c FROM l WHERE ${lhs} IN (SELECT ${rhs} FROM r)`), count(`SELECT COUNT(*) AS c FROM l WHERE ${lhs} = (SELECT ${rhs} FROM r)`)];
            const literal = typeof value === 'bigint' ? String(value) : value === null ? 'NULL' : '?';
            const params = literal === '?' ? [value] : [];
            const list = [count(`SELECT COUNT(*) AS c FROM l WHERE ${lhs} IN (${literal})`, ...params), count(`SELECT COUNT(*) AS c FROM l WHERE ${lhs} = ${literal}`, ...params)];
            if (agree) expect(list, `${left.type ?? 'expression'} vs ${right.type ?? 'expression'}: ${lv} vs ${rv}`).toEqual(subquery);
          }
        }
      }
    }
    // The rule must not be trivially "never": most pairs are exact.
    expect(exactPairs).toBeGreaterThan(20);
    await ds.destroy();
  });

  describe('end to end', () => {
    @Entity('aff_sharded')
    @Sharded()
    class AffSharded {
      @PrimaryColumn('integer') @ShardKey() id!: number;
      @Column({ type: 'integer', nullable: true }) integerCol!: unknown;
      @Column({ type: 'real', nullable: true }) realCol!: unknown;
      @Column({ type: 'numeric', nullable: true }) numericCol!: unknown;
      @Column({ type: 'text', nullable: true }) textCol!: unknown;
      @Column({ type: 'blob', nullable: true }) blobCol!: unknown;
    }
    @Entity('aff_plain')
    class AffPlain {
      @PrimaryColumn('integer') id!: number;
      @Column({ type: 'integer', nullable: true }) integerCol!: unknown;
      @Column({ type: 'real', nullable: true }) realCol!: unknown;
      @Column({ type: 'numeric', nullable: true }) numericCol!: unknown;
      @Column({ type: 'text', nullable: true }) textCol!: unknown;
      @Column({ type: 'blob', nullable: true }) blobCol!: unknown;
    }
    let fx: Fixture;
    beforeAll(async () => {
      fx = await openFixture('sqlite', [AffSharded, AffPlain], 3);
      for (const ds of [fx.plain, fx.sharded]) {
        // Every value in every column, stored by SQLite's own conversion (raw INSERTs keep the storage classes).
        for (const [i, v] of VALUES.entries()) {
          for (const table of ['aff_sharded', 'aff_plain']) await ds.query(`INSERT INTO ${table} (id, integerCol, realCol, numericCol, textCol, blobCol) VALUES (${i + 1}, ${v}, ${v}, ${v}, ${v}, ${v})`);
        }
      }
    });
    afterAll(async () => fx?.close());

    const columns = Object.keys(DECLARED);
    it.each(columns.flatMap((l) => [...columns, '+text'].map((r) => [l, r] as const)))('aff_plain.%s IN (SELECT aff_sharded.%s …): exact or refused', async (l, r) => {
      // A subquery over the sharded table runs first; the unsharded statement then runs on the default shard.
      const column = (name: string) => (name.startsWith('+') ? `+${name.slice(1)}Col` : `${name}Col`);
      const sql = `SELECT id, (${column(l)} IN (SELECT ${column(r)} FROM aff_sharded WHERE id > ?)) AS hit FROM aff_plain ORDER BY id`;
      const rAffinity: Affinity = r.startsWith('+') ? 'X' : DECLARED[r]!.affinity;
      const expected = await fx.plain.query(sql, [4]);
      if (sqliteAffinitiesAgree(DECLARED[l]!.affinity, rAffinity)) expect(await fx.sharded.query(sql, [4])).toEqual(expected);
      else await expect(fx.sharded.query(sql, [4])).rejects.toThrow(UnsupportedShardingError);
    });
  });
});

import { describe, expect, it } from 'vitest';
import { QueryResult } from 'typeorm';
import { BroadcastDivergenceError, copiesResult } from './copies-result.js';

const shards = ['s0', 's1', 's2'];
const mysql = (affectedRows: number, changedRows = affectedRows, insertId = 0) => {
  const r = new QueryResult();
  r.affected = affectedRows;
  r.raw = { fieldCount: 0, affectedRows, insertId, info: `Rows matched: ${affectedRows}  Changed: ${changedRows}  Warnings: 0`, serverStatus: 2, warningStatus: 0, changedRows };
  return r;
};
const sqlite = (changes: number, lastInsertRowid: number) => {
  const r = new QueryResult();
  r.affected = changes;
  r.raw = lastInsertRowid;
  return r;
};
const update = { verb: 'UPDATE', sql: 'UPDATE regions SET name = ? WHERE id = ?', check: true };

describe('copiesResult', () => {
  it("reports the default shard's result untouched when every copy agrees", () => {
    const parts = [mysql(1), mysql(1), mysql(1)];
    expect(copiesResult(parts, shards, 'mysql', update)).toBe(parts[0]);
    const inserts = [sqlite(1, 7), sqlite(1, 7), sqlite(1, 7)];
    expect(copiesResult(inserts, shards, 'sqlite', { verb: 'INSERT', sql: 'INSERT …', check: true })).toBe(inserts[0]);
  });

  it.each([
    ['affected rows', [mysql(1), mysql(0), mysql(1)], 'mysql'],
    ['changed rows', [mysql(2, 2), mysql(2, 1), mysql(2, 2)], 'mysql'],
    ['SQLite changes', [sqlite(1, 3), sqlite(1, 3), sqlite(2, 3)], 'sqlite'],
  ] as const)('raises BroadcastDivergenceError when the copies disagree on %s', (_what, parts, dialect) => {
    const error = (() => {
      try {
        copiesResult(parts, shards, dialect, update);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(BroadcastDivergenceError);
    expect((error as BroadcastDivergenceError).outcomes.map((o) => o.shard)).toEqual(shards);
    expect((error as BroadcastDivergenceError).sql).toBe(update.sql);
  });

  it('does not compare what is not a write of copies (a table rebuild counting each shard\'s rows)', () => {
    const parts = [sqlite(3, 3), sqlite(5, 5)];
    expect(copiesResult(parts, shards, 'sqlite', { verb: 'INSERT', sql: 'INSERT INTO temporary_t SELECT …', check: false })).toBe(parts[0]);
  });

  it('compares generated ids of inserts', () => {
    expect(() => copiesResult([mysql(1, 0, 5), mysql(1, 0, 6)], shards, 'mysql', { verb: 'INSERT', sql: 'INSERT …', check: true })).toThrow(BroadcastDivergenceError);
    expect(() => copiesResult([sqlite(1, 5), sqlite(1, 6)], shards, 'sqlite', { verb: 'INSERT', sql: 'INSERT …', check: true })).toThrow(/id 5.*id 6/);
    // SQLite's last rowid is the connection's, not the statement's, when nothing was inserted (or for UPDATE).
    expect(() => copiesResult([sqlite(0, 5), sqlite(0, 6)], shards, 'sqlite', { verb: 'INSERT', sql: 'INSERT OR IGNORE …', check: true })).not.toThrow();
    expect(() => copiesResult([sqlite(1, 5), sqlite(1, 6)], shards, 'sqlite', update)).not.toThrow();
  });

  it('does not compare DDL or PRAGMA results (per-database facts)', () => {
    const rows = (n: number) => {
      const r = new QueryResult();
      r.records = Array.from({ length: n }, (_, i) => ({ page: i }));
      r.raw = r.records;
      return r;
    };
    const parts = [rows(3), rows(5), rows(1)];
    expect(copiesResult(parts, shards, 'sqlite', { verb: 'PRAGMA', sql: 'PRAGMA page_count', check: false })).toBe(parts[0]);
    expect(copiesResult([mysql(4), mysql(9)], shards, 'mysql', { verb: 'ALTER', sql: 'ALTER TABLE orders …', check: false }).affected).toBe(4);
  });
});

import { describe, expect, it } from 'vitest';
import { QueryResult } from 'typeorm';
import { UnsupportedShardingError } from '../errors/index.js';
import { writesResult } from './query-result.js';

const header = (affectedRows: number, changedRows: number, warningStatus = 0) => {
  const r = new QueryResult();
  r.affected = affectedRows;
  r.raw = { fieldCount: 0, affectedRows, insertId: 0, info: `Rows matched: ${affectedRows}  Changed: ${changedRows}  Warnings: ${warningStatus}`, serverStatus: 2, warningStatus, changedRows };
  return r;
};

describe('writesResult', () => {
  it("adds up mysql2's counts and its info text over the shards", () => {
    const result = writesResult([header(3, 1), header(2, 2, 1)], 'mysql');
    expect(result.affected).toBe(5);
    expect(result.raw).toMatchObject({ affectedRows: 5, changedRows: 3, warningStatus: 1, info: 'Rows matched: 5  Changed: 3  Warnings: 1', insertId: 0 });
  });

  it('reports 0 affected rows for a write routed to no shard (In([]))', () => {
    expect(writesResult([], 'sqlite').affected).toBe(0);
    expect(writesResult([], 'mysql')).toMatchObject({ affected: 0, raw: { affectedRows: 0, changedRows: 0 } });
  });

  const returning = (...ids: number[]) => {
    const r = new QueryResult();
    r.records = ids.map((id) => ({ id }));
    r.raw = r.records;
    r.affected = ids.length;
    return r;
  };

  it('puts rows an INSERT … RETURNING sent back in the order of the VALUES rows', () => {
    const result = writesResult([returning(10, 12), returning(11)], 'mysql', [[0, 2], [1]]);
    expect(result.records).toEqual([{ id: 10 }, { id: 11 }, { id: 12 }]);
  });

  it('refuses rows of several shards one of which skipped some of its rows (the order among them is unknown)', () => {
    expect(() => writesResult([returning(10), returning(11)], 'mysql', [[0, 2], [1]])).toThrow(UnsupportedShardingError);
    // Only one shard returned rows, or the shard that skipped rows skipped them all: exact.
    expect(writesResult([returning(10), returning()], 'mysql', [[0, 2], [1]]).records).toEqual([{ id: 10 }]);
    expect(writesResult([returning(10, 12), returning()], 'mysql', [[0, 2], [1]]).records).toEqual([{ id: 10 }, { id: 12 }]);
  });
});

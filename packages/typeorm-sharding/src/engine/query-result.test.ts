import { describe, expect, it } from 'vitest';
import { QueryResult } from 'typeorm';
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
});

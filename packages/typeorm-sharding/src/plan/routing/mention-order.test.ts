import { describe, expect, it } from 'vitest';
import { parameterize } from '../../parameterize/index.js';
import { parseStatement } from '../nodes/from-parser.js';
import { listedRowsOf } from './mention-order.js';

const whereOf = (sql: string) => {
  const ast = parseStatement(parameterize(sql, [], 'sqlite').parserSql);
  if (ast?.kind !== 'select') throw new Error('not a select');
  return ast.where;
};

describe('listedRowsOf', () => {
  it("reads TypeORM's re-read of inserted rows: one key column, values in the order listed", () => {
    const listed = listedRowsOf(whereOf('SELECT "N"."id" FROM "notes" "N" WHERE ("N"."id" = 5 OR "N"."id" = 1 OR "N"."id" = 3)'));
    expect(listed?.columns.map((c) => c.column)).toEqual(['id']);
    expect(listed?.rows).toEqual([[0], [1], [2]]);
  });

  it('reads composite keys whatever the order of the terms inside each row', () => {
    const listed = listedRowsOf(whereOf('SELECT a FROM t WHERE (a = 1 AND b = 2) OR (b = 4 AND a = 3)'));
    expect(listed?.columns.map((c) => c.column)).toEqual(['a', 'b']);
    expect(listed?.rows).toEqual([[0, 1], [3, 2]]);
  });

  it('reads the listing inside an AND whose other conjuncts filter (TypeORM re-reads a soft-deletable entity so)', () => {
    const listed = listedRowsOf(whereOf('SELECT "N"."id" FROM "notes" "N" WHERE (("N"."id" = 5 OR "N"."id" = 1 OR "N"."id" = 3)) AND ("N"."deletedAt" IS NULL)'));
    expect(listed?.columns.map((c) => c.column)).toEqual(['id']);
    expect(listed?.rows).toEqual([[0], [1], [2]]);
    const composite = listedRowsOf(whereOf('SELECT a FROM t WHERE c > 1 AND ((a = 1 AND b = 2) OR (b = 4 AND a = 3)) AND d IS NULL'));
    expect(composite?.rows).toEqual([[1, 2], [4, 3]]);
  });

  it('reads an OR chain of thousands of rows without recursion', () => {
    const n = 20_000;
    let where: import('../nodes/sql-node.js').SqlNode = { kind: 'binary', op: '=', left: { kind: 'column', column: 'id' }, right: { kind: 'slot', slot: 0 } } as never;
    for (let i = 1; i < n; i++) where = { kind: 'binary', op: 'OR', left: where, right: { kind: 'binary', op: '=', left: { kind: 'column', column: 'id' }, right: { kind: 'slot', slot: i } } } as never;
    expect(listedRowsOf(where)?.rows).toHaveLength(n);
  });

  it.each([
    ['two listings in one AND', 'SELECT a FROM t WHERE (a = 1 OR a = 2) AND (b = 3 OR b = 4)'],
    ['a single equality', 'SELECT a FROM t WHERE a = 1'],
    ['rows of different columns', 'SELECT a FROM t WHERE a = 1 OR b = 2'],
    ['a range', 'SELECT a FROM t WHERE a = 1 OR a > 2'],
    ['a row with a column too many', 'SELECT a FROM t WHERE a = 1 OR (a = 2 AND b = 3)'],
  ])('is undefined for %s', (_label, sql) => {
    expect(listedRowsOf(whereOf(sql))).toBeUndefined();
  });
});

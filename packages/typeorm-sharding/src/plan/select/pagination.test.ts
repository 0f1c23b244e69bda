import { describe, expect, it } from 'vitest';
import { parameterize, type SqlDialect } from '../../parameterize/index.js';
import { hasNegativeLimit, isDeepPage, mergeLimitOf, pageOf, paginationOf, rowsPerInput, shardRowCount, type Pagination } from './pagination.js';

/** The page of `LIMIT <count> [OFFSET <offset>]` written as literals (slot 0 the count, slot 1 the offset). */
function page(count: string, offset: string | undefined, pushed = true): Pagination {
  const sql = `SELECT a FROM t LIMIT ${count}${offset === undefined ? '' : ` OFFSET ${offset}`}`;
  const p = parameterize(sql, [], 'mysql');
  return paginationOf({ countSlot: 0, offsetSlot: offset === undefined ? undefined : 1 }, pushed, p)!;
}

describe('pagination', () => {
  it('is undefined without a LIMIT', () => {
    expect(paginationOf(undefined, true, { slots: [] })).toBeUndefined();
    expect(isDeepPage(undefined, 0)).toBe(false);
  });

  it('reads `?` values as well as literals', () => {
    const p = parameterize('SELECT a FROM t LIMIT ? OFFSET ?', [20, '40'], 'mysql');
    expect(paginationOf({ countSlot: 0, offsetSlot: 1 }, true, p)).toEqual({ offset: 40n, count: 20n, pushed: true });
  });

  it('reads a negative OFFSET as no offset (SQLite), and tells a negative LIMIT or OFFSET (MySQL rejects them)', () => {
    const p = parameterize('SELECT a FROM t LIMIT 3 OFFSET -5', [], 'sqlite');
    const limit = { countSlot: 0, offsetSlot: 1 };
    expect(paginationOf(limit, true, p)).toEqual({ offset: 0n, count: 3n, pushed: true });
    expect(hasNegativeLimit(limit, p)).toBe(true);
    expect(hasNegativeLimit(limit, parameterize('SELECT a FROM t LIMIT -1 OFFSET 2', [], 'sqlite'))).toBe(true);
    expect(hasNegativeLimit(limit, parameterize('SELECT a FROM t LIMIT 1 OFFSET 2', [], 'sqlite'))).toBe(false);
    expect(hasNegativeLimit(undefined, p)).toBe(false);
  });

  const CASES: readonly {
    readonly name: string;
    readonly count: string;
    readonly offset?: string;
    readonly pushed?: boolean;
    readonly shards: Record<SqlDialect, string>;
    readonly perInput: bigint | undefined;
    readonly merge: { offset: number; count?: number };
  }[] = [
    { name: 'the Atlas page: each shard from row 0 to offset + count', count: '20', offset: '20', shards: { mysql: '40', sqlite: '40' }, perInput: 40n, merge: { offset: 20, count: 20 } },
    { name: 'no offset', count: '7', shards: { mysql: '7', sqlite: '7' }, perInput: 7n, merge: { offset: 0, count: 7 } },
    { name: 'LIMIT 0', count: '0', offset: '5', shards: { mysql: '5', sqlite: '5' }, perInput: 5n, merge: { offset: 5, count: 0 } },
    { name: "SQLite's LIMIT -1 (skip without take): no limit anywhere", count: '-1', offset: '10', shards: { mysql: '18446744073709551615', sqlite: '-1' }, perInput: undefined, merge: { offset: 10 } },
    { name: 'groups span shards: the shards send every row, the merge pages', count: '5', offset: '10', pushed: false, shards: { mysql: '18446744073709551615', sqlite: '-1' }, perInput: undefined, merge: { offset: 10, count: 5 } },
    { name: "MySQL's 2^64 - 1 idiom plus an offset passes the largest count: no limit", count: '18446744073709551615', offset: '5', shards: { mysql: '18446744073709551615', sqlite: '-1' }, perInput: 18446744073709551620n, merge: { offset: 5, count: Number.MAX_SAFE_INTEGER } },
    { name: 'a sum just within SQLite\'s largest count is kept exactly', count: '9223372036854775800', offset: '7', shards: { mysql: '9223372036854775807', sqlite: '9223372036854775807' }, perInput: 9223372036854775807n, merge: { offset: 7, count: Number.MAX_SAFE_INTEGER } },
    { name: 'an offset beyond 2^53 leaves no row either way', count: '3', offset: '9007199254740993', shards: { mysql: '9007199254740996', sqlite: '9007199254740996' }, perInput: 9007199254740996n, merge: { offset: Number.MAX_SAFE_INTEGER, count: 3 } },
  ];

  it.each(CASES)('$name', (c) => {
    const pg = page(c.count, c.offset, c.pushed ?? true);
    expect(rowsPerInput(pg)).toBe(c.perInput);
    expect(shardRowCount(pg, 'mysql')).toBe(c.shards.mysql);
    expect(shardRowCount(pg, 'sqlite')).toBe(c.shards.sqlite);
    expect(mergeLimitOf(pg)).toEqual(c.merge);
  });

  it('pages rows in memory as the merge would', () => {
    const rows = Array.from({ length: 10 }, (_, i) => i);
    expect(pageOf(rows, page('3', '4'))).toEqual([4, 5, 6]);
    expect(pageOf(rows, page('-1', '8'))).toEqual([8, 9]);
    expect(pageOf(rows, page('5', '20'))).toEqual([]);
    expect(pageOf(rows, undefined)).toEqual(rows);
  });

  it('a page is deep when the merge reads more than the threshold before it is complete', () => {
    expect(isDeepPage(page('20', '980'), 1000)).toBe(false);
    expect(isDeepPage(page('20', '981'), 1000)).toBe(true);
    expect(isDeepPage(page('-1', '0'), 1000)).toBe(true);
    // Not pushed down (groups span shards): still as deep for the merge.
    expect(isDeepPage(page('2000', '0', false), 1000)).toBe(true);
  });
});

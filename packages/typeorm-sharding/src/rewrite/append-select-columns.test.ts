import { describe, expect, it } from 'vitest';
import { appendSelectColumns } from './append-select-columns.js';

const key = { sql: 'WEIGHT_STRING(CONCAT(a, ?))', parameters: ['!'], alias: 'k0' };

describe('appendSelectColumns', () => {
  it.each([
    ['before FROM, its values after the select list\'s own', 'SELECT a, ? AS b FROM t WHERE c = ?', ['x', 'y'], 'SELECT a, ? AS b, WEIGHT_STRING(CONCAT(a, ?)) AS `k0` FROM t WHERE c = ?', ['x', '!', 'y']],
    ['a select list without FROM', 'SELECT ? AS a', [1], 'SELECT ? AS a, WEIGHT_STRING(CONCAT(a, ?)) AS `k0`', [1, '!']],
    ['a comment after the list stays after it', 'SELECT a -- note\nFROM t', [], 'SELECT a, WEIGHT_STRING(CONCAT(a, ?)) AS `k0` -- note\nFROM t', ['!']],
    ['FROM inside a subquery of the list is not the end', 'SELECT (SELECT MAX(x) FROM u WHERE u.y = ?) AS m FROM t LIMIT ?', [1, 5], 'SELECT (SELECT MAX(x) FROM u WHERE u.y = ?) AS m, WEIGHT_STRING(CONCAT(a, ?)) AS `k0` FROM t LIMIT ?', [1, '!', 5]],
    ['after columns the rewrite added', 'SELECT a , b AS `__shard_sort_0` FROM t ORDER BY b', [], 'SELECT a , b AS `__shard_sort_0`, WEIGHT_STRING(CONCAT(a, ?)) AS `k0` FROM t ORDER BY b', ['!']],
  ])('%s', (_name, sql, parameters, expectedSql, expectedParameters) => {
    expect(appendSelectColumns({ shard: 2, sql, parameters }, [key], 'mysql')).toEqual({ shard: 2, sql: expectedSql, parameters: expectedParameters });
  });

  it('quotes aliases for SQLite and keeps the statement\'s other fields', () => {
    const out = appendSelectColumns({ shard: 0, sql: 'SELECT a FROM t', parameters: [], exactIntegers: true }, [{ sql: 'a', parameters: [], alias: 'k' }], 'sqlite');
    expect(out).toEqual({ shard: 0, sql: 'SELECT a, a AS "k" FROM t', parameters: [], exactIntegers: true });
  });

  it('returns the statement itself when there is nothing to add', () => {
    const statement = { shard: 1, sql: 'SELECT a FROM t', parameters: [] };
    expect(appendSelectColumns(statement, [], 'mysql')).toBe(statement);
  });
});

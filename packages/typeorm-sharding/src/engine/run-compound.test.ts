import { describe, expect, it } from 'vitest';
import { UnsupportedShardingError } from '../errors/index.js';
import { mysqlWeightKey } from '../plan/typing/column-order.js';
import { fakeEngine } from './testing/fake-engine.js';

// The physical statements of compound SELECTs (explain() runs the same preparation as a query,
// without a database): each SELECT routed and rewritten on its own, named alike, and on MySQL
// given the keys the merge compares by.

type Statement = readonly [shard: string, sql: string, parameters: readonly unknown[]];
const explain = (dialect: 'mysql' | 'sqlite', sql: string, parameters: unknown[] = [], options = {}): Statement[] =>
  fakeEngine(dialect, options)
    .explain(dialect === 'mysql' ? sql : sql.replace(/`/g, '"'), parameters)
    .map((s) => [s.shard, s.sql, s.parameters]);
const sqlite = (sql: string) => sql.replace(/`/g, '"');

describe('compound SELECT: physical statements', () => {
  it('routes and prunes each SELECT on its own, naming unaliased items alike (orders: id mod 4)', () => {
    const sql = 'SELECT id, note AS n FROM orders WHERE id IN (?, ?, ?) UNION ALL SELECT id, name FROM customers WHERE id = ?';
    const expected = (q: (s: string) => string): Statement[] => [
      ['s1', q('SELECT id AS `__shard_c0`, note AS n FROM orders WHERE id IN (?, ?)'), [1, 5]],
      ['s2', q('SELECT id AS `__shard_c0`, note AS n FROM orders WHERE id IN (?)'), [2]],
      ['s2', q('SELECT id AS `__shard_c0`, name AS `__shard_c1` FROM customers WHERE id = ?'), [3]],
    ];
    expect(explain('mysql', sql, [1, 2, 5, 3])).toEqual(expected((s) => s));
    expect(explain('sqlite', sql, [1, 2, 5, 3])).toEqual(expected(sqlite));
  });

  it('MySQL: a UNION that removes duplicates selects the text weights of its text columns; numbers compare as they are', () => {
    const statements = explain('mysql', 'SELECT id, note FROM orders WHERE id = ? UNION SELECT id, name FROM customers WHERE id = ?', [1, 2]);
    expect(statements).toEqual([
      ['s1', `SELECT id AS \`__shard_c0\`, note AS \`__shard_c1\`, ${mysqlWeightKey('note')} AS \`__shard_union_key_1\` FROM orders WHERE id = ?`, [1]],
      ['s2', `SELECT id AS \`__shard_c0\`, name AS \`__shard_c1\`, ${mysqlWeightKey('name')} AS \`__shard_union_key_1\` FROM customers WHERE id = ?`, [2]],
    ]);
    // SQLite compares the values themselves.
    expect(explain('sqlite', 'SELECT id, note FROM orders WHERE id = ? UNION SELECT id, name FROM customers WHERE id = ?', [1, 2]).map((s) => s[1])).toEqual([
      sqlite('SELECT id AS `__shard_c0`, note AS `__shard_c1` FROM orders WHERE id = ?'),
      sqlite('SELECT id AS `__shard_c0`, name AS `__shard_c1` FROM customers WHERE id = ?'),
    ]);
  });

  it('MySQL: UNION ALL keys only the columns its ORDER BY compares; a key repeats the item\'s parameters', () => {
    const statements = explain('mysql', 'SELECT createdAt, CONCAT(note, ?) AS t FROM orders WHERE id = ? UNION ALL SELECT createdAt, CONCAT(note, ?) FROM orders WHERE id = ? ORDER BY 1 DESC, t', ['!', 1, '?', 2]);
    // The item's own `?`, then one per copy of the expression in the key.
    const copies = mysqlWeightKey('x').split('x').length - 1;
    const values = (v: string) => Array.from({ length: 1 + copies }, () => v);
    expect(statements).toEqual([
      ['s1', `SELECT createdAt AS \`__shard_c0\`, CONCAT(note, ?) AS t, (createdAt + 0) AS \`__shard_union_key_0\`, ${mysqlWeightKey('CONCAT(note, ?)')} AS \`__shard_union_key_1\` FROM orders WHERE id = ?`, [...values('!'), 1]],
      ['s2', `SELECT createdAt AS \`__shard_c0\`, CONCAT(note, ?) AS \`__shard_c1\`, (createdAt + 0) AS \`__shard_union_key_0\`, ${mysqlWeightKey('CONCAT(note, ?)')} AS \`__shard_union_key_1\` FROM orders WHERE id = ?`, [...values('?'), 2]],
    ]);
  });

  it('runs the whole compound unchanged when every SELECT reaches one shard as it is', () => {
    const sql = 'SELECT id, note FROM orders WHERE id IN (?, ?) UNION SELECT CAST(id AS SIGNED), name FROM regions ORDER BY 2 LIMIT 3';
    // 4 and 8 live on s0, the default shard, where the broadcast table is read too.
    expect(explain('mysql', sql, [4, 8])).toEqual([['s0', sql, [4, 8]]]);
    // 1 lives on s1: the broadcast SELECT runs on s0, so the compound is split.
    expect(explain('mysql', sql, [1, 5]).map((s) => s[0])).toEqual(['s1', 's0']);
    // Cut into batches, the SELECT is no longer one statement as written.
    expect(explain('mysql', sql, [4, 8], { maxInValuesPerQuery: 1 }).length).toBe(3);
  });

  it('a SELECT that can match nothing sends nothing', () => {
    expect(explain('sqlite', 'SELECT id FROM orders WHERE ((0=1)) UNION ALL SELECT id FROM orders WHERE id = 2').map((s) => s[0])).toEqual(['s2']);
  });

  it('MySQL: branches must agree on each column\'s type, checked per statement for values', () => {
    const refused = (sql: string, parameters: unknown[], message: string) => {
      expect(() => explain('mysql', sql, parameters)).toThrow(UnsupportedShardingError);
      expect(() => explain('mysql', sql, parameters)).toThrow(message);
    };
    refused('SELECT id FROM orders UNION ALL SELECT buyerId FROM orders', [], 'is bigint in SELECT 1 and int in SELECT 2');
    refused('SELECT ? AS t FROM orders UNION ALL SELECT ? FROM customers', ['a', 5], 'is text in SELECT 1 and int in SELECT 2');
    refused('SELECT ? AS t FROM orders UNION ALL SELECT ? FROM customers', [5, 1234567890], 'is int in SELECT 1 and bigint in SELECT 2');
    refused('SELECT buyerId + 1 FROM orders UNION ALL SELECT buyerId FROM orders', [], 'of a type the planner cannot tell in SELECT 1');
    expect(explain('mysql', 'SELECT ? AS t FROM orders UNION ALL SELECT ? FROM customers', ['a', 'b']).length).toBe(8);
    expect(explain('mysql', 'SELECT NULL AS t FROM orders UNION ALL SELECT note FROM orders', []).length).toBe(8);
    expect(explain('mysql', 'SELECT CAST(id AS CHAR) AS t FROM orders UNION ALL SELECT CAST(buyerId AS CHAR) FROM orders', []).length).toBe(8);
    // On one shard the database converts them itself.
    expect(explain('mysql', 'SELECT id FROM orders WHERE id = ? UNION ALL SELECT buyerId FROM orders WHERE id = ?', [1, 5]).length).toBe(1);
  });

  it('MySQL: refuses a keyed aggregate of a SELECT that reaches several shards, not of one that reaches one', () => {
    expect(() => explain('mysql', 'SELECT MAX(note) AS m FROM orders UNION SELECT note FROM orders')).toThrow('aggregate that reaches several shards');
    expect(explain('mysql', 'SELECT MAX(note) AS m FROM orders WHERE id = ? UNION SELECT note FROM orders WHERE id = ?', [1, 2]).map((s) => s[1])).toEqual([
      `SELECT MAX(note) AS m, ${mysqlWeightKey('MAX(note)')} AS \`__shard_union_key_0\` FROM orders WHERE id = ?`,
      `SELECT note AS \`__shard_c0\`, ${mysqlWeightKey('note')} AS \`__shard_union_key_0\` FROM orders WHERE id = ?`,
    ]);
    // Numbers need no key: a scattered COUNT is fine.
    expect(explain('mysql', 'SELECT COUNT(*) AS n FROM orders UNION SELECT COUNT(*) FROM customers').length).toBe(8);
  });
});

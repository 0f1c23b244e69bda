import { describe, expect, it } from 'vitest';
import { UnsupportedShardingError } from '../../errors/index.js';
import { parameterize, type SqlDialect } from '../../parameterize/index.js';
import { analyze } from '../analyze.js';
import type { CompoundPlan } from './compound-plan.js';
import { fakeRules } from '../testing/fake-rules.js';

const rules = fakeRules();
const quoted = (sql: string, dialect: SqlDialect) => (dialect === 'mysql' ? sql : sql.replace(/`/g, '"'));
const plan = (sql: string, dialect: SqlDialect, parameters: unknown[] = []) => analyze(parameterize(quoted(sql, dialect), parameters, dialect), rules, dialect);
const compound = (sql: string, dialect: SqlDialect, parameters: unknown[] = []) => {
  const p = plan(sql, dialect, parameters);
  expect(p.kind).toBe('compound');
  return p as CompoundPlan;
};

describe.each(['mysql', 'sqlite'] as const)('analyzeCompound (%s)', (dialect) => {
  it('names the result columns as the first SELECT does and aliases its unaliased items alike in every SELECT', () => {
    const p = compound('SELECT o.`id`, o.note AS n, COUNT(*) FROM orders o WHERE o.id = ? GROUP BY o.id, o.note UNION ALL SELECT id AS x, name, COUNT(*) AS c FROM customers GROUP BY id, name', dialect, [1]);
    expect(p.names).toEqual(['id', 'n', undefined]);
    expect(p.branches.map((b) => [b.sharded, b.names, b.unaliased])).toEqual([
      [true, ['__shard_c0', 'n', '__shard_c2'], [0, 2]],
      [true, ['x', '__shard_c1', 'c'], [1]],
    ]);
  });

  it('resolves the ORDER BY by position and by name, and reads the LIMIT by slot', () => {
    const p = compound('SELECT id AS k, note FROM orders UNION SELECT id, note FROM orders WHERE id IN (?, ?) ORDER BY note DESC, 1 LIMIT 5 OFFSET 10', dialect, [1, 2]);
    expect(p.orderBy).toEqual([
      { position: 1, direction: 'DESC' },
      { position: 0, direction: 'ASC' },
    ]);
    const slots = parameterize(quoted('SELECT id AS k, note FROM orders UNION SELECT id, note FROM orders WHERE id IN (?, ?) ORDER BY note DESC, 1 LIMIT 5 OFFSET 10', dialect), [1, 2], dialect).slots;
    expect([slots[p.limit!.countSlot]!.value, slots[p.limit!.offsetSlot!]!.value]).toEqual(['5', '10']);
  });

  it('a compound of broadcast and unsharded tables runs on the default shard as it is, whatever its form', () => {
    const onDefault = { kind: 'default-shard', reason: 'a compound SELECT of broadcast and unsharded tables only' };
    expect(plan('SELECT name FROM regions UNION SELECT name FROM users ORDER BY 1', dialect)).toEqual(onDefault);
    expect(plan('SELECT * FROM regions UNION SELECT id, name FROM users FOR UPDATE', dialect)).toEqual(onDefault);
  });

  it('types the columns: MySQL families and collations, SQLite collations', () => {
    const p = compound('SELECT id, note, ?, NULL, COUNT(*), MAX(buyerId) FROM orders GROUP BY id, note UNION ALL SELECT id, name, ?, 1, 2, 3 FROM customers', dialect, ['a', 'b']);
    const first = p.branches[0]!.columns;
    if (dialect === 'mysql') {
      expect(first.map((c) => (c.kind === 'typed' ? `${c.type.family}/${c.type.collation}/${c.type.aggregate}` : c.kind))).toEqual([
        'bigint/undefined/false',
        'text/default/false',
        'slot',
        'slot',
        'bigint/undefined/true',
        'int/undefined/true',
      ]);
    } else {
      expect(first.map((c) => (c.kind === 'typed' ? c.type.collation : c.kind))).toEqual(['BINARY', 'BINARY', undefined, undefined, undefined, undefined]);
    }
  });

  it('refuses, naming the fix', () => {
    const refused = (sql: string, message: string | RegExp) => {
      expect(() => plan(sql, dialect)).toThrow(UnsupportedShardingError);
      expect(() => plan(sql, dialect)).toThrow(message);
    };
    refused('SELECT * FROM orders UNION SELECT * FROM orders', 'list its columns');
    refused('SELECT id, note FROM orders UNION SELECT id FROM orders', 'has 1 columns and SELECT 1 has 2');
    refused('SELECT id AS a, note AS a FROM orders UNION SELECT id, note FROM orders', 'names two columns "a"');
    refused('SELECT id FROM orders UNION SELECT id FROM orders ORDER BY id DESC, LOWER(id)', 'position of a result column');
    refused('SELECT id FROM orders UNION SELECT id FROM orders ORDER BY 2', 'ORDER BY 2 is not a column');
    refused('SELECT id FROM orders UNION SELECT id FROM orders ORDER BY missing', 'names no result column');
    refused('SELECT id FROM orders UNION SELECT id FROM users JOIN orders ON orders.id = users.id', 'unsharded table "users"');
  });
});

describe('analyzeCompound: dialect differences', () => {
  it('SQLite also orders by a later SELECT\'s alias or by a column an item reads; MySQL refuses', () => {
    const sql = 'SELECT id AS a FROM orders UNION SELECT id AS b FROM orders ORDER BY b';
    expect(compound(sql, 'sqlite').orderBy).toEqual([{ position: 0, direction: 'ASC' }]);
    expect(() => plan(sql, 'mysql')).toThrow('names no result column');
    expect(compound('SELECT id AS a FROM orders UNION SELECT id FROM orders ORDER BY id', 'sqlite').orderBy).toEqual([{ position: 0, direction: 'ASC' }]);
  });

  it('SQLite names an unaliased column by its declared name, MySQL as written', () => {
    expect(compound('SELECT ID FROM orders UNION SELECT id FROM orders', 'sqlite').names).toEqual(['id']);
    expect(compound('SELECT ID FROM orders UNION SELECT id FROM orders', 'mysql').names).toEqual(['ID']);
    expect(compound('SELECT d.x FROM (SELECT id AS x FROM regions) d UNION SELECT id FROM orders', 'sqlite').names).toEqual(['x']);
  });
});

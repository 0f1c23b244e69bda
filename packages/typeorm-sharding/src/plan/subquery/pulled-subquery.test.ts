import { describe, expect, it } from 'vitest';
import { UnsupportedShardingError } from '../../errors/index.js';
import { parameterize, type SqlDialect } from '../../parameterize/index.js';
import { analyze } from '../analyze.js';
import type { Plan } from '../plan.js';
import { fakeRules, SHOP_TABLES } from '../testing/fake-rules.js';
import { DIALECTS, typeormSql } from '../testing/typeorm-sql.js';

// Which subqueries run first (Vitess's pulled-out subquery), how their values are written
// back, and which subqueries over sharded tables are refused. One MySQL spelling per case;
// the SQLite spelling is derived as TypeORM writes it (numbers into the text).

const rules = fakeRules([
  ...SHOP_TABLES,
  { table: 'measures', entity: 'Measure', distribution: 'sharded', columns: { id: 'bigint', weight: 'float', ratio: 'double', price: 'decimal', at: 'datetime', day: 'date', flag: 'bit' }, key: { column: 'id' } },
]);

/** A pulled subquery as `ordinal:use:binding`, the binding as its type (MySQL) or `sqlite`. */
type Summary = { readonly pulled: readonly string[]; readonly reach: string } | { readonly plan: string };

interface Case {
  readonly name: string;
  readonly query: string;
  readonly parameters?: readonly unknown[];
  /** Per dialect when they differ. */
  readonly expect: Summary | { readonly error: RegExp } | { readonly mysql: Summary | { readonly error: RegExp }; readonly sqlite: Summary | { readonly error: RegExp } };
}

const pulled = (reach: 'every-shard' | 'default-shard', ...subqueries: string[]): Summary => ({ pulled: subqueries, reach });

const CASES: readonly Case[] = [
  {
    name: 'x IN (SELECT …) over a sharded table, in a sharded statement',
    query: 'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`id` IN (SELECT `i`.`orderId` FROM `order_items` `i` WHERE `i`.`sku` = ?)',
    parameters: ['a'],
    expect: { mysql: pulled('every-shard', '0:list:integer/bigint'), sqlite: pulled('every-shard', '0:list:sqlite') },
  },
  {
    name: 'NOT IN',
    query: 'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`id` NOT IN (SELECT `orderId` FROM `order_items`)',
    expect: { mysql: pulled('every-shard', '0:list:integer/bigint'), sqlite: pulled('every-shard', '0:list:sqlite') },
  },
  {
    name: 'a scalar subquery compared with =',
    query: 'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`buyerId` = (SELECT MAX(`c`.`id`) FROM `customers` `c`)',
    expect: { mysql: pulled('every-shard', '0:scalar:integer/bigint'), sqlite: pulled('every-shard', '0:scalar:sqlite') },
  },
  {
    name: 'an unsharded statement reading a sharded subquery runs on the default shard',
    query: 'SELECT `u`.`name` FROM `users` `u` WHERE `u`.`id` IN (SELECT `o`.`buyerId` FROM `orders` `o` WHERE `o`.`note` = ?)',
    parameters: ['x'],
    expect: { mysql: pulled('default-shard', '0:list:integer/int'), sqlite: pulled('default-shard', '0:list:sqlite') },
  },
  {
    name: 'a broadcast statement reading a sharded subquery',
    query: 'SELECT `r`.`name` FROM `regions` `r` WHERE `r`.`id` IN (SELECT `o`.`regionId` FROM `orders` `o`)',
    expect: { mysql: pulled('default-shard', '0:list:integer/int'), sqlite: pulled('default-shard', '0:list:sqlite') },
  },
  {
    name: 'a select item keeps its type: COUNT(*) is a BIGINT',
    query: 'SELECT (SELECT COUNT(*) FROM `orders`) AS `n`, `r`.`name` FROM `regions` `r`',
    expect: { mysql: pulled('default-shard', '0:scalar:integer/bigint:keep'), sqlite: pulled('default-shard', '0:scalar:sqlite') },
  },
  {
    name: 'a select item without alias is named after its text: refused',
    query: 'SELECT (SELECT COUNT(*) FROM `orders`) FROM `regions`',
    expect: { error: /without an alias.*alias with AS/ },
  },
  {
    name: 'correlated (qualified by an outer alias): refused, naming the column',
    query: 'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`buyerId` IN (SELECT `i`.`qty` FROM `order_items` `i` WHERE `i`.`orderId` = `o`.`id`)',
    expect: { error: /correlated: it refers to "o\.id"/ },
  },
  {
    name: 'correlated (unqualified, a column of no table inside): refused',
    query: 'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`buyerId` = (SELECT MAX(`i`.`qty`) FROM `order_items` `i` WHERE `i`.`sku` = `note`)',
    expect: { error: /correlated: it refers to "note"/ },
  },
  {
    name: 'unqualified columns of the subquery\'s own table are not correlated',
    query: 'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`id` IN (SELECT `orderId` FROM `order_items` WHERE `sku` = ? ORDER BY `qty` LIMIT 3)',
    parameters: ['b'],
    expect: { mysql: pulled('every-shard', '0:list:integer/bigint'), sqlite: pulled('every-shard', '0:list:sqlite') },
  },
  {
    name: 'EXISTS is left to the SELECT planner (TypeORM\'s exists())',
    query: 'SELECT 1 AS `row_exists` FROM (SELECT 1 AS dummy_column) `dummy_table` WHERE EXISTS (SELECT 1 FROM `orders` `Order` WHERE `Order`.`id` IN (?, ?)) LIMIT 1',
    parameters: [1, 2],
    expect: { plan: 'select' },
  },
  {
    name: 'NOT EXISTS too (node-sql-parser reads it as one operator): the SELECT planner refuses it',
    query: 'SELECT 1 AS `row_exists` FROM (SELECT 1 AS dummy_column) `dummy_table` WHERE NOT EXISTS (SELECT 1 FROM `orders` `Order` WHERE `Order`.`id` IN (?, ?)) LIMIT 1',
    parameters: [1, 2],
    expect: { error: /depends on every shard at once/ },
  },
  {
    name: 'a write with NOT EXISTS over a sharded table: refused',
    query: 'DELETE FROM `users` WHERE NOT EXISTS (SELECT 1 FROM `orders` WHERE `buyerId` = ?)',
    parameters: [3],
    expect: { error: /EXISTS subquery of a write/ },
  },
  {
    name: 'nested subqueries: only the outermost runs first (it runs its own)',
    query: 'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`id` IN (SELECT `i`.`orderId` FROM `order_items` `i` WHERE `i`.`qty` IN (SELECT `c`.`id` FROM `customers` `c`))',
    expect: { mysql: pulled('every-shard', '0:list:integer/bigint'), sqlite: pulled('every-shard', '0:list:sqlite') },
  },
  {
    name: 'a subquery inside a derived table',
    query: 'SELECT `t`.`id` FROM (SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`id` IN (SELECT `orderId` FROM `order_items`)) `t`',
    expect: { mysql: pulled('every-shard', '1:list:integer/bigint'), sqlite: pulled('every-shard', '1:list:sqlite') },
  },
  {
    name: 'a subquery over a broadcast table needs nothing',
    query: 'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`regionId` IN (SELECT `id` FROM `regions` WHERE `name` = ?)',
    parameters: ['x'],
    expect: { plan: 'select' },
  },
  {
    name: 'a subquery over an unsharded table in a sharded statement runs first (it lives on the default shard)',
    query: 'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`buyerId` IN (SELECT `id` FROM `users` WHERE `name` = ?)',
    parameters: ['x'],
    expect: { mysql: pulled('every-shard', '0:list:integer/int'), sqlite: pulled('every-shard', '0:list:sqlite') },
  },
  {
    name: 'a subquery over an unsharded table in a broadcast read stays (both are on the default shard)',
    query: 'SELECT `r`.`id` FROM `regions` `r` WHERE `r`.`id` IN (SELECT `id` FROM `users`)',
    expect: { plan: 'default-shard' },
  },
  {
    name: 'parameters before, inside and after two subqueries',
    query:
      'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`buyerId` = ? AND `o`.`id` IN (SELECT `orderId` FROM `order_items` WHERE `sku` IN (?, ?)) ' +
      'AND `o`.`note` = ? AND `o`.`regionId` = (SELECT MIN(`qty`) FROM `order_items` WHERE `sku` = ?) LIMIT 5',
    parameters: [3, 'a', 'b', 'n', 'c'],
    expect: { mysql: pulled('every-shard', '0:list:integer/bigint', '1:scalar:integer/int'), sqlite: pulled('every-shard', '0:list:sqlite', '1:scalar:sqlite') },
  },
  {
    name: '`x IN ((SELECT …))` is a list holding one scalar subquery',
    query: 'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`id` IN ((SELECT MAX(`orderId`) FROM `order_items`))',
    expect: { mysql: pulled('every-shard', '0:scalar:integer/bigint'), sqlite: pulled('every-shard', '0:scalar:sqlite') },
  },
  {
    name: 'UPDATE: SET from a subquery is stored (no type to keep), WHERE … IN (SELECT …)',
    query: 'UPDATE `orders` SET `buyerId` = (SELECT MAX(`qty`) FROM `order_items`) WHERE `id` IN (SELECT `orderId` FROM `order_items` WHERE `sku` = ?)',
    parameters: ['a'],
    expect: { mysql: pulled('every-shard', '0:scalar:integer/int', '1:list:integer/bigint'), sqlite: pulled('every-shard', '0:scalar:sqlite', '1:list:sqlite') },
  },
  {
    name: 'DELETE of an unsharded table by a sharded subquery',
    query: 'DELETE FROM `users` WHERE `id` NOT IN (SELECT `buyerId` FROM `orders`)',
    expect: { mysql: pulled('default-shard', '0:list:integer/int'), sqlite: pulled('default-shard', '0:list:sqlite') },
  },
  {
    name: 'a write with a correlated EXISTS over a sharded table: refused (each shard would see its own rows)',
    query: 'UPDATE `orders` SET `note` = ? WHERE EXISTS (SELECT 1 FROM `order_items` `i` WHERE `i`.`orderId` = `orders`.`id`)',
    parameters: ['x'],
    expect: { error: /EXISTS subquery of a write/ },
  },
  {
    name: 'INSERT … VALUES with a subquery',
    query: 'INSERT INTO `users` (`id`, `name`) VALUES ((SELECT MAX(`buyerId`) FROM `orders`), ?)',
    parameters: ['x'],
    expect: { mysql: pulled('default-shard', '0:scalar:integer/int:stored'), sqlite: pulled('default-shard', '0:scalar:sqlite') },
  },
  {
    name: 'ANY / ALL: refused',
    query: 'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`buyerId` > ANY (SELECT `qty` FROM `order_items`)',
    expect: { error: /ANY \/ ALL \/ SOME/ },
  },
  {
    name: 'two columns: refused',
    query: 'SELECT `o`.`id` FROM `orders` `o` WHERE (`o`.`id`, `o`.`buyerId`) IN (SELECT `orderId`, `qty` FROM `order_items`)',
    expect: { error: /more than one column/ },
  },
  {
    name: 'a date compared with a date column: CAST(? AS DATETIME(0))',
    query: 'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`createdAt` = (SELECT MAX(`at`) FROM `measures`)',
    expect: { mysql: pulled('every-shard', '0:scalar:temporal/DATETIME(0)'), sqlite: pulled('every-shard', '0:scalar:sqlite') },
  },
  {
    name: 'a DECIMAL is a decimal literal',
    query: 'SELECT `m`.`id` FROM `measures` `m` WHERE `m`.`price` IN (SELECT `price` FROM `measures` WHERE `ratio` > ?)',
    parameters: [0.5],
    expect: { mysql: pulled('every-shard', '0:list:decimal'), sqlite: pulled('every-shard', '0:list:sqlite') },
  },
  {
    name: 'FLOAT values cannot be written back exactly (MySQL prints 6 digits)',
    query: 'SELECT `m`.`id` FROM `measures` `m` WHERE `m`.`ratio` IN (SELECT `weight` FROM `measures`)',
    expect: { mysql: { error: /FLOAT.*\+ 0e0/ }, sqlite: pulled('every-shard', '0:list:sqlite') },
  },
  {
    name: 'a string column compared with numbers: refused (a column compares as doubles, a literal exactly)',
    query: 'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`note` IN (SELECT `qty` FROM `order_items`)',
    expect: { mysql: { error: /compares numbers with a string/ }, sqlite: { error: /type affinity/ } },
  },
  {
    name: 'a parameter compared with numbers: a number per statement on MySQL; SQLite would convert it by the column\'s affinity',
    query: 'SELECT `o`.`id` FROM `orders` `o` WHERE ? IN (SELECT `orderId` FROM `order_items`)',
    parameters: ['5'],
    expect: { mysql: pulled('every-shard', '0:list:integer/bigint:slots=0'), sqlite: { error: /type affinity/ } },
  },
  {
    name: 'an aggregate has no affinity: compared with a parameter on SQLite',
    query: 'SELECT `o`.`id` FROM `orders` `o` WHERE (SELECT COUNT(*) FROM `order_items`) > ?',
    parameters: [3],
    expect: { mysql: pulled('every-shard', '0:scalar:integer/bigint:slots=0'), sqlite: pulled('every-shard', '0:scalar:sqlite') },
  },
  {
    name: 'a scalar subquery left of an IN list: the list\'s values have no affinity on SQLite; MySQL cannot type them',
    query: 'SELECT `o`.`id` FROM `orders` `o` WHERE (SELECT MAX(`qty`) FROM `order_items`) IN (?, ?)',
    parameters: [1, 2],
    expect: { mysql: { error: /unknown type/ }, sqlite: pulled('every-shard', '0:scalar:sqlite') },
  },
  {
    name: 'a string compared with a parameter: refused on MySQL (the literal would decide the collation)',
    query: 'SELECT `o`.`id` FROM `orders` `o` WHERE ? IN (SELECT `sku` FROM `order_items`)',
    parameters: ['a'],
    expect: { mysql: { error: /collation/ }, sqlite: { error: /type affinity|collation/ } },
  },
];

function summaryOf(plan: Plan): Summary {
  if (plan.kind !== 'pulled') return { plan: plan.kind };
  return {
    reach: plan.reach,
    pulled: plan.subqueries.map((s) => {
      const b = s.binding;
      const type = b.dialect === 'sqlite' ? 'sqlite' : b.type.kind === 'integer' ? `integer/${b.type.width}` : b.type.kind === 'temporal' ? `temporal/${b.type.cast}` : b.type.kind;
      const flags = b.dialect === 'mysql' ? [b.keepType ? 'keep' : '', b.numericSlots.length > 0 ? `slots=${b.numericSlots.join(',')}` : ''].filter(Boolean) : [];
      return [String(s.ordinal), s.use, type, ...flags].join(':');
    }),
  };
}

function expectationOf(c: Case, dialect: SqlDialect): Summary | { readonly error: RegExp } {
  return 'mysql' in c.expect ? c.expect[dialect] : c.expect;
}

describe.each(DIALECTS)('pulled-out subqueries (%s)', (dialect) => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const { sql, parameters } = typeormSql(c.query, c.parameters ?? [], dialect);
    const expected = expectationOf(c, dialect);
    const run = () => analyze(parameterize(sql, parameters, dialect), rules, dialect);
    if ('error' in expected) {
      expect(run).toThrow(UnsupportedShardingError);
      expect(run).toThrow(expected.error);
      return;
    }
    const summary = summaryOf(run());
    // INSERT marks a value stored into a column; the summary says so for MySQL.
    const stored = summary && 'pulled' in expected && expected.pulled.some((s) => s.endsWith(':stored'));
    if (stored && 'pulled' in summary) {
      expect(summary.pulled.map((s) => `${s}:stored`)).toEqual(expected.pulled);
      return;
    }
    expect(summary).toEqual(expected);
  });
});

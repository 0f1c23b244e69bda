import { describe, expect, it } from 'vitest';
import { UnreadableStatementError, UnsupportedShardingError } from '../../errors/index.js';
import { parameterize, type SqlDialect } from '../../parameterize/index.js';
import { routeByKey } from '../../route/index.js';
import { analyze } from '../analyze.js';
import { fakeRules } from '../testing/fake-rules.js';

// A statement node-sql-parser cannot read (`SOUNDS LIKE`, SQLite's `GLOB`) runs where the lexer
// alone finds its one shard by `key = value`; anything else is refused in the user's own text.
// orders is sharded by id, mod 4.

const rules = fakeRules();

function shardsOf(sql: string, parameters: readonly unknown[] = [], dialect: SqlDialect = 'mysql'): number[] | 'nowhere' {
  const p = parameterize(sql, parameters, dialect);
  const plan = analyze(p, rules, dialect);
  if (plan.kind !== 'select' && plan.kind !== 'write') throw new Error(`not routed: ${plan.kind}`);
  const route = routeByKey(plan.condition, plan.prunableLists, p, rules.ruleOf(plan.table)!.shardKey!, 4, { pruning: true, maxInValuesPerQuery: 256 });
  return route.kind === 'nowhere' ? 'nowhere' : route.units.map((u) => u.shard);
}

function refusal(sql: string, dialect: SqlDialect = 'mysql'): Error {
  try {
    analyze(parameterize(sql, [], dialect), rules, dialect);
  } catch (error) {
    return error as Error;
  }
  throw new Error(`planned: ${sql}`);
}

describe('lexer routing of a statement the parser cannot read', () => {
  it.each([
    ["SELECT id FROM orders WHERE id = 5 AND note SOUNDS LIKE 'a'", [1]],
    ["SELECT `o`.`id` FROM `orders` `o` WHERE ((`o`.`id` = ?) AND (`o`.`note` SOUNDS LIKE 'a')) ORDER BY `o`.`id` LIMIT 3", [2], [6]],
    ["SELECT COUNT(*) FROM orders AS o WHERE note SOUNDS LIKE 'a' AND (buyerId = 3 AND o.id = 7)", [3]],
    ["UPDATE orders SET note = 'x' WHERE id = 2 AND note SOUNDS LIKE 'a'", [2]],
    ["DELETE FROM orders WHERE note SOUNDS LIKE 'a' AND id = 4", [0]],
  ] as const)('%s → one shard', (sql, shards, parameters: readonly unknown[] = [1]) => {
    expect(shardsOf(sql, sql.includes('?') ? parameters : [])).toEqual(shards);
  });

  it('SQLite: GLOB with a key condition, literal values in the text', () => {
    expect(shardsOf(`SELECT "o"."id" FROM "orders" "o" WHERE "o"."id" = 6 AND "o"."note" GLOB 'a*'`, [], 'sqlite')).toEqual([2]);
  });

  it('`key = NULL` reaches no shard (the statement still runs once on the default shard for an aggregate)', () => {
    expect(shardsOf("SELECT COUNT(*) FROM orders WHERE id = ? AND note SOUNDS LIKE 'a'", [null])).toBe('nowhere');
  });

  it.each([
    ["SELECT id FROM orders WHERE note SOUNDS LIKE 'a'", 'no key condition'],
    ["SELECT id FROM orders WHERE id = 5 OR note SOUNDS LIKE 'a'", 'an OR at the top'],
    ["SELECT id FROM orders WHERE buyerId BETWEEN 1 AND id = 5 AND note SOUNDS LIKE 'a'", 'the AND of a BETWEEN'],
    ["SELECT id FROM orders WHERE id = 5 XOR note SOUNDS LIKE 'a'", 'XOR'],
    ["SELECT id FROM orders o JOIN order_items i ON i.orderId = o.id WHERE o.id = 5 AND note SOUNDS LIKE 'a'", 'a join'],
    ["SELECT id FROM orders, regions WHERE orders.id = 5 AND note SOUNDS LIKE 'a'", 'a second table'],
    ["SELECT id FROM orders WHERE id = 5 AND note SOUNDS LIKE (SELECT note FROM orders LIMIT 1)", 'a subquery'],
    ["SELECT id FROM orders WHERE id = 5 AND note SOUNDS LIKE 'a' UNION SELECT id FROM orders", 'a set operation'],
    ["UPDATE orders SET id = 9 WHERE id = 5 AND note SOUNDS LIKE 'a'", 'an UPDATE of the key'],
    ["SELECT id FROM orders WHERE x.id = 5 AND note SOUNDS LIKE 'a'", 'a key of another name'],
    ["SELECT id FROM orders WHERE id = 5 + 1 AND note SOUNDS LIKE 'a'", 'a key compared with an expression'],
    ["SELECT id FROM orders USE INDEX (PRIMARY) WHERE id = 1 AND note SOUNDS LIKE 'a'", 'an index hint'],
  ])('%s: refused (%s)', (sql) => {
    // UnreadableStatementError, or the refusal of the stage that sees the construct first (a set operation).
    expect(refusal(sql)).toBeInstanceOf(UnsupportedShardingError);
  });

  it('the refusal shows where the parser stopped in the user\'s own text and dialect, not the grammar\'s tokens', () => {
    expect(refusal("SELECT id FROM orders WHERE note SOUNDS LIKE 'a'")).toBeInstanceOf(UnreadableStatementError);
    const mysql = refusal("SELECT `id` FROM `orders` WHERE `buyerId` IN (1, 2, 3) AND `note` SOUNDS LIKE 'abc'").message;
    expect(mysql).toMatch(/at “.*`buyerId` IN \(1, 2, 3\) AND `note` ⟨here⟩SOUNDS LIKE 'abc'”/);
    expect(mysql).not.toMatch(/Expected|:p\d|:l\d/);
    const sqlite = refusal(`SELECT "id" FROM "orders" WHERE "buyerId" = 7 AND "note" GLOB 'a*'`, 'sqlite').message;
    expect(sqlite).toMatch(/"buyerId" = 7 AND "note" ⟨here⟩GLOB 'a\*'/);
    expect(sqlite).toMatch(/shard key/);
  });
});

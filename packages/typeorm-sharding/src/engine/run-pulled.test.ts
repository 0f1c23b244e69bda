import { QueryResult } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { parameterize, type SqlDialect } from '../parameterize/index.js';
import { analyze } from '../plan/analyze.js';
import { fakeRules } from '../plan/testing/fake-rules.js';
import { fakeEngine } from './testing/fake-engine.js';
import { runPulled, type PulledRun } from './run-pulled.js';

// The splice of a pulled-out subquery's values into the original text, with a logging fake
// for the engine: the subquery texts and parameters it is asked to run, and the statement
// that runs last. The subqueries' own `?` leave with them; their values take their place.

const rules = fakeRules();

/** A fake engine answering each subquery text with the given first-column values; logs every call. */
function fakeRun(dialect: SqlDialect, answers: Readonly<Record<string, readonly unknown[]>>): PulledRun & { readonly log: string[] } {
  const log: string[] = [];
  return {
    dialect,
    maxValues: 100,
    log,
    async run(sql, parameters, exact) {
      log.push(`${exact ? 'exact ' : ''}${sql} ${JSON.stringify(parameters, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}`);
      const result = new QueryResult();
      const values = answers[sql];
      result.records = values === undefined ? [] : values.map((v) => ({ v }));
      return result;
    },
  };
}

async function pulledLog(dialect: SqlDialect, sql: string, parameters: readonly unknown[], answers: Readonly<Record<string, readonly unknown[]>>): Promise<string[]> {
  const p = parameterize(sql, parameters, dialect);
  const plan = analyze(p, rules, dialect);
  if (plan.kind !== 'pulled') throw new Error(`expected a pulled plan, got ${plan.kind}`);
  const engine = fakeRun(dialect, answers);
  await runPulled(plan, p, engine, false);
  return engine.log;
}

describe('runPulled', () => {
  it('keeps the parameter order: before, inside (they leave with the subquery) and after', async () => {
    const sql =
      'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`buyerId` = ? AND `o`.`id` IN (SELECT `orderId` FROM `order_items` WHERE `sku` IN (?, ?)) ' +
      'AND `o`.`note` = ? AND `o`.`regionId` = (SELECT MIN(`qty`) FROM `order_items` WHERE `sku` = ?) LIMIT 5';
    const log = await pulledLog('mysql', sql, [3, 'a', 'b', 'n', 'c'], {
      'SELECT `orderId` FROM `order_items` WHERE `sku` IN (?, ?)': ['9', '4', '9'],
      'SELECT MIN(`qty`) FROM `order_items` WHERE `sku` = ?': [7],
    });
    expect(log).toEqual([
      'exact SELECT `orderId` FROM `order_items` WHERE `sku` IN (?, ?) ["a","b"]',
      'exact SELECT MIN(`qty`) FROM `order_items` WHERE `sku` = ? ["c"]',
      'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`buyerId` = ? AND `o`.`id` IN (9, 4) AND `o`.`note` = ? AND `o`.`regionId` = (7) LIMIT 5 [3,"n"]',
    ]);
  });

  it('puts parameters of string values where the subquery was (SQLite)', async () => {
    const sql = 'SELECT "o"."id" FROM "orders" "o" WHERE "o"."note" = ? AND "o"."note" IN (SELECT "sku" FROM "order_items" WHERE "qty" > 3 AND "sku" <> ?) AND "o"."id" > 5';
    const log = await pulledLog('sqlite', sql, ['first', 'not-this'], { 'SELECT "sku" FROM "order_items" WHERE "qty" > 3 AND "sku" <> ?': ['x', null, 'y', 'x'] });
    expect(log).toEqual([
      'exact SELECT "sku" FROM "order_items" WHERE "qty" > 3 AND "sku" <> ? ["not-this"]',
      'SELECT "o"."id" FROM "orders" "o" WHERE "o"."note" = ? AND "o"."note" IN (?, NULL, ?) AND "o"."id" > 5 ["first","x","y"]',
    ]);
  });

  it('runs the outermost subquery only (it runs its own inner one) and passes the inner text whole', async () => {
    const inner = 'SELECT `i`.`orderId` FROM `order_items` `i` WHERE `i`.`qty` IN (SELECT `c`.`id` FROM `customers` `c` WHERE `c`.`name` = ?)';
    const log = await pulledLog('mysql', `SELECT \`o\`.\`id\` FROM \`orders\` \`o\` WHERE \`o\`.\`id\` NOT IN (${inner}) AND \`o\`.\`note\` = ?`, ['ann', 'z'], { [inner]: [] });
    expect(log).toEqual([
      `exact ${inner} ["ann"]`,
      'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`id` NOT IN (SELECT NULL FROM DUAL WHERE 1 = 0) AND `o`.`note` = ? ["z"]',
    ]);
  });

  it('MySQL: a scalar subquery of several rows makes the database raise its own error at once', async () => {
    const sub = 'SELECT `qty` FROM `order_items` WHERE `sku` = ?';
    const log = await pulledLog('mysql', `SELECT \`o\`.\`id\` FROM \`orders\` \`o\` WHERE \`o\`.\`buyerId\` = (${sub})`, ['a'], { [sub]: [1, 2] });
    expect(log.slice(1)).toEqual([
      'SELECT (SELECT NULL UNION ALL SELECT NULL) AS more_than_one_row []',
      'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`buyerId` = (SELECT NULL UNION ALL SELECT NULL) []',
    ]);
  });

  it('writes a subquery\'s value into INSERT … VALUES without parentheses', async () => {
    const log = await pulledLog('sqlite', 'INSERT INTO "users"("id", "name") VALUES ((SELECT MAX("buyerId") FROM "orders"), ?)', ['x'], { 'SELECT MAX("buyerId") FROM "orders"': [12n] });
    expect(log[1]).toBe('INSERT INTO "users"("id", "name") VALUES (12, ?) ["x"]');
  });
});

describe('explain of a statement with a pulled-out subquery', () => {
  it('lists the subquery\'s statements first, then the statement on every shard it may reach, saying it waits for the values', () => {
    const engine = fakeEngine('mysql');
    const explained = engine.explain('SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`id` IN (SELECT `orderId` FROM `order_items` WHERE `sku` = ?)', ['a']);
    expect(explained.map((e) => [e.shard, e.sql, e.parameters])).toEqual([
      ...['s0', 's1', 's2', 's3'].map((s) => [s, 'SELECT `orderId` FROM `order_items` WHERE `sku` = ?', ['a']]),
      ...['s0', 's1', 's2', 's3'].map((s) => [s, 'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`id` IN (SELECT `orderId` FROM `order_items` WHERE `sku` = ?)', ['a']]),
    ]);
    expect(explained[0]!.note).toMatch(/^subquery 1 of 1: runs first/);
    expect(explained[4]!.note).toMatch(/runs after its subqueries/);
  });

  it('an unsharded statement waits on the default shard', () => {
    const explained = fakeEngine('sqlite').explain('SELECT "name" FROM "users" WHERE "id" IN (SELECT "buyerId" FROM "orders" WHERE "id" = 5)');
    expect(explained.map((e) => e.shard)).toEqual(['s1', 's0']);
  });
});

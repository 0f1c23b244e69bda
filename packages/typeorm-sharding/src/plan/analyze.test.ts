import { describe, expect, it } from 'vitest';
import { parameterize, type SqlDialect } from '../parameterize/index.js';
import { analyze } from './analyze.js';
import { PLAN_CASES, type PlanCase } from './analyze-cases.fixture.js';
import { fakeRules } from './testing/fake-rules.js';
import { summarizePlan } from './testing/summarize-plan.js';
import { DIALECTS, typeormSql, type SqlWithParams } from './testing/typeorm-sql.js';

const rules = fakeRules();

function statementOf(c: PlanCase, dialect: SqlDialect): SqlWithParams {
  const explicit = dialect === 'mysql' ? c.mysql : c.sqlite;
  if (explicit) return explicit;
  if (c.query === undefined) throw new Error(`case "${c.comment}" has no ${dialect} spelling`);
  return typeormSql(c.query, c.parameters ?? [], dialect);
}

/**
 * SQLite orders values by storage class (numbers numerically, text by code point) whatever
 * the column's declared type, so its sort keys are `auto` where MySQL's are typed.
 */
function expectedFor(plan: unknown, dialect: SqlDialect): unknown {
  if (dialect !== 'sqlite') return plan;
  return JSON.parse(JSON.stringify(plan), (key, value: unknown) => (key === 'type' && (value === 'numeric' || value === 'date' || value === 'string') ? 'auto' : value));
}

function planOf(statement: SqlWithParams, dialect: SqlDialect): unknown {
  return summarizePlan(analyze(parameterize(statement.sql, statement.parameters, dialect), rules, dialect));
}

describe.each(DIALECTS)('analyze golden cases (%s)', (dialect) => {
  const cases = PLAN_CASES.filter((c) => (c.dialects ?? DIALECTS).includes(dialect));
  it.each(cases.map((c) => [c.comment, c] as const))('%s', (_comment, c) => {
    const statement = statementOf(c, dialect);
    if (c.error) {
      let thrown: unknown;
      try {
        planOf(statement, dialect);
      } catch (e) {
        thrown = e;
      }
      expect(thrown, statement.sql).toBeInstanceOf(Error);
      expect((thrown as Error).constructor.name).toBe(c.error.name);
      expect((thrown as Error).message).toContain(c.error.message);
      expect((thrown as { code?: string }).code).toBe('SHARDING_UNSUPPORTED');
    } else {
      expect(planOf(statement, dialect), statement.sql).toEqual(expectedFor(c.planOf ? c.planOf(dialect) : c.plan, dialect));
    }
  });
});

describe('analyze', () => {
  it('plans by shape: the plan of one statement serves every list length and value', () => {
    const plans = [1, 2, 7, 300].map((n) => {
      const ids = Array.from({ length: n }, (_, i) => i * 3 + 1);
      const sql = `SELECT "Order"."id" AS "Order_id" FROM "orders" "Order" WHERE (("Order"."id" IN (${ids.join(', ')}))) LIMIT ${n}`;
      return summarizePlan(analyze(parameterize(sql, [], 'sqlite'), rules, 'sqlite'));
    });
    for (const plan of plans) expect(plan).toEqual(plans[0]);
  });

  it('looks table names up case-insensitively (raw SQL with other casing)', () => {
    const p = parameterize('SELECT `id` FROM `ORDERS` WHERE `id` IN (?, ?)', [1, 2], 'mysql');
    expect(summarizePlan(analyze(p, rules, 'mysql'))).toMatchObject({ kind: 'select', table: 'ORDERS', prunableLists: [0] });
  });

  // Regression (fixed): the binding-join check accepts any `keyA = keyB` anywhere in the statement, even
  // under an OR. With `ON I.orderId = O.id OR I.id = O.buyerId` an item may match an order
  // on another shard through the second disjunct; per-shard joins silently miss those rows.
  it('refuses a join whose shard-key equality sits under an OR', () => {
    const sql =
      'SELECT `Order`.`id` AS `Order_id`, `I`.`id` AS `I_id` FROM `orders` `Order` ' +
      'INNER JOIN `order_items` `I` ON `I`.`orderId`=`Order`.`id` OR `I`.`id`=`Order`.`buyerId` WHERE `Order`.`id` IN (?, ?)';
    expect(() => analyze(parameterize(sql, [1, 2], 'mysql'), rules, 'mysql')).toThrow(/without equating their shard keys/);
  });
});

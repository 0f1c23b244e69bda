import { it } from 'vitest';
import { fakeEngine } from './testing/fake-engine.js';
import { parameterize } from '../parameterize/index.js';
import { analyze } from '../plan/analyze.js';
import { fakeRules } from '../plan/testing/fake-rules.js';

const T: [string, string, unknown[], object?][] = [
  ['sqlite', 'SELECT DISTINCT "distinctAlias"."Order_id" AS "ids_Order_id", "distinctAlias"."Order_createdAt" FROM (SELECT "Order"."id" AS "Order_id", "Order"."createdAt" AS "Order_createdAt", "I"."id" AS "I_id" FROM "orders" "Order" LEFT JOIN "order_items" "I" ON "I"."orderId"="Order"."id" WHERE "Order"."id" IN (1, 2, 5)) "distinctAlias" ORDER BY "distinctAlias"."Order_createdAt" DESC, "Order_id" ASC LIMIT 2 OFFSET 1', []],
  ['mysql', 'UPDATE `orders` SET `note` = ? WHERE `buyerId` = ? LIMIT 2', ['x', 7]],
  ['mysql', 'DELETE FROM `orders` WHERE `buyerId` = ? LIMIT 2', [7]],
  ['sqlite', 'SELECT 1 AS "row_exists" FROM (SELECT 1 AS dummy_column) "dummy_table" WHERE NOT EXISTS (SELECT 1 FROM "orders" "Order" WHERE "Order"."id" IN (1, 2)) LIMIT 1', []],
  ['mysql', 'SELECT `Order`.`id` AS `Order_id`, `I`.`id` AS `I_id` FROM `orders` `Order` INNER JOIN `order_items` `I` ON `I`.`orderId`=`Order`.`id` OR `I`.`id`=`Order`.`buyerId` WHERE `Order`.`id` IN (?, ?)', [1, 2]],
  ['sqlite', 'SELECT "Order"."id" AS "Order_id" FROM "orders" "Order" WHERE "Order"."id" IN (1, 2) ORDER BY "Order"."createdAt" DESC LIMIT -1 OFFSET 1', []],
];
it('scratch', () => {
  const rules = fakeRules();
  for (const [d, sql, ps, o] of T) {
    let plan: unknown, out: unknown;
    try { const p = parameterize(sql, ps, d as never); plan = analyze(p, rules, d as never); } catch (e) { plan = `${(e as Error).constructor.name}: ${(e as Error).message}`; }
    try { out = fakeEngine(d as never, o).explain(sql, ps); } catch (e) { out = `${(e as Error).constructor.name}: ${(e as Error).message}`; }
    console.log(d, sql, JSON.stringify(ps), '\n', JSON.stringify(plan), '\n', JSON.stringify(out, null, 0));
  }
});

import { it } from 'vitest';
import { fakeEngine } from './testing/fake-engine.js';
import { typeormSql, DIALECTS } from '../plan/testing/typeorm-sql.js';

const T: [string, unknown[], object?][] = [
  ["SELECT `Order`.`id` AS `Order_id`, `Order`.`buyerId` AS `Order_buyerId` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?, ?, ?, ?)) AND (`Order`.`buyerId` = ?)) ORDER BY `Order`.`createdAt` DESC LIMIT 2 OFFSET 1", [1,2,4,5,9,7]],
  ["SELECT `Order`.`id` AS `Order_id`, `Order`.`buyerId` AS `Order_buyerId` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?, ?, ?, ?)) AND (`Order`.`buyerId` = ?)) ORDER BY `Order`.`createdAt` DESC LIMIT 2 OFFSET 1", [1,2,4,5,9,7], {maxInValuesPerQuery: 2}],
  ["SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?, ?)) AND (`Order`.`note` = ?)) LIMIT 2", [5,'5','005', 'x']],
  ["SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?, ?)) AND (`Order`.`note` = ?)) LIMIT 2", [5,null,9, 'x']],
  ["/* comment */ SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?)))", [1,2]],
  ["SELECT DISTINCT `distinctAlias`.`Order_id` AS `ids_Order_id`, `distinctAlias`.`Order_id` FROM (SELECT `Order`.`id` AS `Order_id`, `I`.`id` AS `I_id` FROM `orders` `Order` LEFT JOIN `order_items` `I` ON `I`.`orderId`=`Order`.`id` WHERE ((`Order`.`id` IN (?, ?, ?)))) `distinctAlias` ORDER BY `distinctAlias`.`Order_id` ASC LIMIT 2 OFFSET 1", [1,2,5]],
  ["SELECT COUNT(1) AS `cnt` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?)))", [1,2]],
  ["SELECT 1 AS `row_exists` FROM (SELECT 1 AS dummy_column) `dummy_table` WHERE EXISTS (SELECT 1 FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?)))) LIMIT 1", [1,2]],
  ["UPDATE `orders` SET `note` = ? WHERE `id` IN (?, ?, ?)", ['x',1,2,5]],
  ["DELETE FROM `orders` WHERE `id` = ?", [5]],
  ["INSERT INTO `orders`(`id`, `buyerId`, `note`) VALUES (?, ?, ?), (?, ?, ?), (?, ?, ?)", [1,1,'a',2,2,'b',5,3,'c']],
  ["SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` ORDER BY `Order`.`createdAt` DESC LIMIT 10", []],
  ["START TRANSACTION", []],
  ["SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?, ?)))", [1,2,5], {pruning:false}],
  ["SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` IN (?) AND `Order`.`id` IN (?)", [1,2]],
  ["SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((0=1))", []],
  ["SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((((`Order`.`id` = ?))) OR (((`Order`.`id` = ?))))", [1,2]],
  ["SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((((`Order`.`id` = ?))) OR (((`Order`.`id` = ?))))", [1,5]],
];
it('scratch', () => {
  for (const d of DIALECTS) for (const [t, ps, o] of T) {
    const s = typeormSql(t, ps, d);
    let out: unknown;
    try { out = fakeEngine(d, o).explain(s.sql, s.parameters); } catch (e) { out = `${(e as Error).constructor.name}: ${(e as Error).message}`; }
    console.log(d, s.sql, JSON.stringify(s.parameters), '\n', JSON.stringify(out, null, 1));
  }
});

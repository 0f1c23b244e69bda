import { describe, expect, it } from 'vitest';
import { UnsupportedShardingError } from '../../errors/index.js';
import { parameterize, type SqlDialect } from '../../parameterize/index.js';
import { Colocation } from '../../rules/index.js';
import { analyze } from '../analyze.js';
import { fakeRules } from '../testing/fake-rules.js';
import { DIALECTS, typeormSql } from '../testing/typeorm-sql.js';

// Planning of relation shapes (issue 8, items 5, 16, 17) over a small shop: orders and items
// sharded by userId (mod), items co-located with orders through items.orderId → orders.id,
// the orders ↔ tags junction sharded by its orderUserId column, tags broadcast, clubs sharded
// by their own id (not co-located with anything).
const rules = fakeRules(
  [
    { table: 'orders', distribution: 'sharded', columns: { id: 'int', userId: 'int', total: 'int' }, key: { column: 'userId' }, uniqueKeys: [['id']] },
    { table: 'items', distribution: 'sharded', columns: { id: 'int', userId: 'int', orderId: 'int', qty: 'int' }, key: { column: 'userId' }, uniqueKeys: [['id', 'userId']] },
    { table: 'order_tags', distribution: 'sharded', columns: { orderId: 'int', orderUserId: 'int', tagId: 'int' }, key: { column: 'orderUserId' }, uniqueKeys: [['orderId', 'orderUserId', 'tagId']] },
    { table: 'tags', distribution: 'broadcast', columns: { id: 'int', name: 'varchar' } },
    { table: 'clubs', distribution: 'sharded', columns: { id: 'int', name: 'varchar' }, key: { column: 'id' } },
  ],
  ['s0', 's1', 's2', 's3'],
  new Colocation(new Map([['orders', 0], ['items', 0]]), [
    { from: 'items', to: 'orders', pairs: [['orderId', 'id']] },
    { from: 'order_tags', to: 'orders', pairs: [['orderId', 'id'], ['orderUserId', 'userId']] },
  ]),
);

const planOf = (template: string, parameters: readonly unknown[], dialect: SqlDialect) => {
  const s = typeormSql(template, parameters, dialect);
  return analyze(parameterize(s.sql, s.parameters, dialect), rules, dialect);
};
const refusal = (template: string, parameters: readonly unknown[], dialect: SqlDialect): UnsupportedShardingError => {
  try {
    planOf(template, parameters, dialect);
  } catch (e) {
    if (e instanceof UnsupportedShardingError) return e;
    throw e;
  }
  throw new Error(`not refused: ${template}`);
};

describe.each(DIALECTS)('relation shapes (%s)', (dialect) => {
  it('co-located tables join shard by shard on the relation columns, routed by either key', () => {
    const plan = planOf('SELECT `o`.`id`, `i`.`id` FROM `orders` `o` LEFT JOIN `items` `i` ON `i`.`orderId`=`o`.`id` WHERE `o`.`userId` IN (?, ?)', [1, 2], dialect);
    expect(plan).toMatchObject({ kind: 'select', table: 'orders', condition: { kind: 'values' }, prunableLists: [0], unmergeable: undefined });
    const byItems = planOf('SELECT `o`.`id` FROM `items` `i` INNER JOIN `orders` `o` ON `o`.`id`=`i`.`orderId` WHERE `i`.`userId` = ?', [3], dialect);
    expect(byItems).toMatchObject({ kind: 'select', table: 'items', condition: { kind: 'values' } });
  });

  it('refuses co-located tables joined on other columns (or under an OR), naming both fixes', () => {
    const e = refusal('SELECT `o`.`id` FROM `orders` `o` INNER JOIN `items` `i` ON `i`.`qty`=`o`.`total` WHERE `o`.`userId` = ?', [1], dialect);
    expect(e.message).toMatch(/without equating their shard keys.*Join on both shard keys too, or declare the entities co-located/);
    refusal('SELECT `o`.`id` FROM `orders` `o` INNER JOIN `items` `i` ON `i`.`orderId`=`o`.`id` OR `i`.`qty`=`o`.`total`', [], dialect);
  });

  it('a table that is not co-located stays refused whatever the join columns', () => {
    refusal('SELECT `o`.`id` FROM `orders` `o` INNER JOIN `clubs` `c` ON `c`.`id`=`o`.`id`', [], dialect);
  });

  it('the junction of a sharded owner joins it on the owner key; the broadcast side joins anywhere', () => {
    const plan = planOf(
      'SELECT `o`.`id`, `t`.`name` FROM `orders` `o` LEFT JOIN `order_tags` `ot` ON `ot`.`orderId`=`o`.`id` AND `ot`.`orderUserId`=`o`.`userId` ' +
        'LEFT JOIN `tags` `t` ON `t`.`id`=`ot`.`tagId` WHERE `o`.`userId` IN (?, ?)',
      [1, 2],
      dialect,
    );
    expect(plan).toMatchObject({ kind: 'select', table: 'orders', prunableLists: [0], unmergeable: undefined });
  });

  it('the inverse side (a broadcast table left-joined to the junction) is unmergeable when scattered, naming relationLoadStrategy', () => {
    const plan = planOf(
      'SELECT `t`.`id`, `o`.`id` FROM `tags` `t` LEFT JOIN `order_tags` `ot` ON `ot`.`tagId`=`t`.`id` ' +
        'LEFT JOIN `orders` `o` ON `o`.`id`=`ot`.`orderId` AND `o`.`userId`=`ot`.`orderUserId`',
      [],
      dialect,
    );
    expect(plan).toMatchObject({ kind: 'select', merge: undefined });
    expect(plan.kind === 'select' && plan.unmergeable).toMatch(/keeps the rows of "tags" \(not sharded\) that have no match in "order_tags" \(sharded\).*relationLoadStrategy: 'query'/);
  });

  it('a WHERE that rejects NULL in the sharded side, an INNER JOIN, or a sharded first table keep rows exact', () => {
    const joins = 'LEFT JOIN `order_tags` `ot` ON `ot`.`tagId`=`t`.`id` LEFT JOIN `orders` `o` ON `o`.`id`=`ot`.`orderId` AND `o`.`userId`=`ot`.`orderUserId`';
    for (const [template, parameters] of [
      [`SELECT \`t\`.\`id\` FROM \`tags\` \`t\` ${joins} WHERE ((\`o\`.\`total\` = ?))`, [5]],
      [`SELECT \`t\`.\`id\` FROM \`tags\` \`t\` ${joins} WHERE \`o\`.\`id\` IS NOT NULL`, []],
      ['SELECT `t`.`id` FROM `tags` `t` INNER JOIN `order_tags` `ot` ON `ot`.`tagId`=`t`.`id` AND `ot`.`tagId` IN (?)', [1]],
      ['SELECT `o`.`id` FROM `orders` `o` LEFT JOIN `tags` `t` ON `t`.`id`=`o`.`total`', []],
      ['SELECT `t`.`id` FROM `tags` `t` RIGHT JOIN `orders` `o` ON `t`.`id`=`o`.`total`', []],
    ] as [string, unknown[]][]) {
      expect(planOf(template, parameters, dialect), template).toMatchObject({ kind: 'select', unmergeable: undefined });
    }
    // IS NULL and a term under OR do not reject NULL; a RIGHT JOIN that keeps broadcast rows repeats them
    for (const [template, parameters] of [
      [`SELECT \`t\`.\`id\` FROM \`tags\` \`t\` ${joins} WHERE \`o\`.\`id\` IS NULL`, []],
      [`SELECT \`t\`.\`id\` FROM \`tags\` \`t\` ${joins} WHERE \`o\`.\`total\` = ? OR \`t\`.\`id\` = ?`, [5, 1]],
      ['SELECT `t`.`id` FROM `orders` `o` RIGHT JOIN `tags` `t` ON `t`.`id`=`o`.`total`', []],
      ['SELECT `d`.`id` FROM (SELECT `t`.`id` FROM `tags` `t` LEFT JOIN `orders` `o` ON `o`.`total`=`t`.`id`) `d`', []],
    ] as [string, unknown[]][]) {
      const plan = planOf(template, parameters, dialect);
      expect(plan.kind === 'select' && plan.unmergeable, template).toMatch(/would repeat/);
    }
  });

  it('upserts: a conflict target with the shard key is planned, others are refused naming the columns', () => {
    const upsert = dialect === 'mysql'
      ? 'INSERT INTO `items`(`id`, `userId`, `qty`) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE `id` = VALUES(`id`), `userId` = VALUES(`userId`), `qty` = VALUES(`qty`)'
      : 'INSERT INTO "items"("id", "userId", "qty") VALUES (1, 2, 3) ON CONFLICT ( "id", "userId" ) DO UPDATE SET "id" = EXCLUDED."id", "userId" = EXCLUDED."userId", "qty" = EXCLUDED."qty"';
    expect(analyze(parameterize(upsert, dialect === 'mysql' ? [1, 2, 3] : [], dialect), rules, dialect)).toMatchObject({ kind: 'insert', table: 'items', keyColumnIndex: 1 });
    const refused = dialect === 'mysql'
      ? 'INSERT INTO `orders`(`id`, `userId`, `total`) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE `total` = VALUES(`total`)'
      : 'INSERT INTO "orders"("id", "userId", "total") VALUES (1, 2, 3) ON CONFLICT ( "id" ) DO UPDATE SET "total" = EXCLUDED."total"';
    expect(() => analyze(parameterize(refused, dialect === 'mysql' ? [1, 2, 3] : [], dialect), rules, dialect)).toThrow(
      dialect === 'mysql' ? /fires on any unique key, and its primary key \(id\) does not contain the shard key "userId"/ : /on \(id\) into sharded table "orders": the conflict target does not contain the shard key "userId"/,
    );
  });
});

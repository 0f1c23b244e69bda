/**
 * Planner golden cases (in the manner of Vitess's `planbuilder/testdata/*_cases.json`):
 * `{ comment, query, plan }`, run on both dialects by `analyze.test.ts`.
 *
 * `query` is spelled the MySQL way (backticks, `?`); the SQLite spelling is derived by
 * `typeormSql` (double quotes, numbers written into the text), which keeps slot numbers
 * identical: a `?` and an inline literal are both value slots. Cases whose two spellings
 * differ by more than that give `mysql` / `sqlite` explicitly.
 *
 * Fixture: `SHOP_TABLES` over four shards — `orders` (sharded by `id`, mod), `order_items`
 * (sharded by `orderId`, mod: binding table), `customers` (sharded by `id`, hash), `codes`
 * (string key, hash), `regions` (broadcast), `users` (unsharded).
 */
import type { SqlDialect } from '../parameterize/index.js';
import type { SqlWithParams } from './testing/typeorm-sql.js';

export interface PlanCase {
  readonly comment: string;
  /** MySQL spelling; the SQLite one is derived. */
  readonly query?: string;
  readonly parameters?: readonly unknown[];
  /** Explicit spellings (instead of `query`). */
  readonly mysql?: SqlWithParams;
  readonly sqlite?: SqlWithParams;
  /** @default both */
  readonly dialects?: readonly SqlDialect[];
  /** The expected plan (for SELECT: the fields `summarizePlan` keeps). */
  readonly plan?: unknown;
  /** Or the expected plan per dialect (column orders differ: see `column-order.ts`). */
  readonly planOf?: (dialect: SqlDialect) => unknown;
  /** Or the expected error: class name and a fragment of its message. */
  readonly error?: { readonly name: string; readonly message: string };
}

const IN0 = { kind: 'values', refs: [{ kind: 'in-list', list: 0 }] };
const slot = (n: number) => ({ kind: 'values', refs: [{ kind: 'slot', slot: n }] });
/** An integer column's sort key: numbers on MySQL, SQLite's storage-class order on SQLite. */
const int = (dialect: SqlDialect, column: string, direction: 'ASC' | 'DESC' = 'ASC') =>
  ({ column, direction, type: dialect === 'sqlite' ? 'auto' : 'numeric', collation: 'binary' });
/**
 * A DATETIME column `expression` ordered on the shards but not selected: MySQL's exact value
 * `expression + 0` is selected (`__shard_key_0`), SQLite's text itself (`__shard_sort_0`).
 */
const datetimeKey = (dialect: SqlDialect, expression: string, direction: 'ASC' | 'DESC') =>
  dialect === 'mysql'
    ? { key: { column: '__shard_key_0', direction, type: 'numeric', collation: 'binary' }, derived: { expression: `(${expression} + 0)`, alias: '__shard_key_0', slots: [] } }
    : { key: { column: '__shard_sort_0', direction, type: 'auto', collation: 'binary' }, derived: { expression, alias: '__shard_sort_0', slots: [] } };

/** The common fields of a SELECT plan routed by `orders`. */
const select = (fields: Record<string, unknown>) => ({
  kind: 'select',
  table: 'orders',
  condition: { kind: 'any' },
  prunableLists: [],
  limit: undefined,
  pushLimit: true,
  merge: { kind: 'concat' },
  derivedColumns: [],
  unmergeable: undefined,
  ...fields,
});

export const PLAN_CASES: readonly PlanCase[] = [
  {
    // Issue 14's test gap: each group lives on one shard, but the rows the groups make repeat
    // across shards (one database: 3 buyers; taken as shard-local: 12 rows). The DISTINCT stays merged.
    comment: 'SELECT DISTINCT over a shard-local GROUP BY (the shard key): the DISTINCT is still merged across shards',
    query: 'SELECT DISTINCT buyerId FROM orders GROUP BY id ORDER BY buyerId',
    plan: select({
      pushLimit: false,
      merge: { kind: 'ordered', orderBy: [{ column: 'buyerId', direction: 'ASC', type: 'numeric', collation: 'binary' }], distinct: { columns: [{ column: 'buyerId', collation: 'binary' }] } },
    }),
  },
  {
    comment: 'the same without DISTINCT: groups by the shard key are shard-local, streams merged in order',
    query: 'SELECT buyerId FROM orders GROUP BY id ORDER BY buyerId',
    plan: select({ merge: { kind: 'ordered', orderBy: [{ column: 'buyerId', direction: 'ASC', type: 'numeric', collation: 'binary' }] } }),
  },
  // ── find() shapes ──────────────────────────────────────────────────────────────
  {
    comment: 'find: In on the key AND another column, ORDER BY a column not selected, skip/take',
    query:
      'SELECT `Order`.`id` AS `Order_id`, `Order`.`buyerId` AS `Order_buyerId` FROM `orders` `Order` ' +
      'WHERE ((`Order`.`id` IN (?, ?, ?)) AND (`Order`.`buyerId` = ?)) ORDER BY `Order`.`createdAt` DESC LIMIT 2 OFFSET 1',
    parameters: [1, 2, 4, 7],
    planOf: (dialect) => {
      const { key, derived } = datetimeKey(dialect, '`Order`.`createdAt`', 'DESC');
      return select({
        condition: IN0,
        prunableLists: [0],
        limit: { countSlot: 1, offsetSlot: 2 },
        merge: { kind: 'ordered', orderBy: [key], strip: [derived.alias] },
        derivedColumns: [derived],
      });
    },
  },
  {
    comment: 'the article example: In(1, 2, 4, 5, 9), numbers inline on SQLite',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?, ?, ?, ?)))',
    parameters: [1, 2, 4, 5, 9],
    plan: select({ condition: IN0, prunableLists: [0] }),
  },
  {
    comment: 'In([]) is written 0=1: two literal slots compared',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((0=1))',
    plan: select({ condition: { kind: 'const-equal', left: 0, right: 1 } }),
  },
  {
    comment: 'where: [{ id: 1 }, { id: 2 }]: an OR of equalities, no list to prune',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((((`Order`.`id` = ?))) OR (((`Order`.`id` = ?))))',
    parameters: [1, 2],
    plan: select({ condition: { kind: 'or', terms: [slot(0), slot(1)] } }),
  },
  {
    comment: 'a leading comment (QueryBuilder.comment()) does not change the plan',
    query: '/* comment */ SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?)))',
    parameters: [1, 2],
    plan: select({ condition: IN0, prunableLists: [0] }),
  },
  {
    comment: 'ORDER BY a selected column uses its alias: no derived column',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?))) ORDER BY `Order`.`id` DESC LIMIT 10',
    parameters: [1, 2],
    planOf: (dialect) => select({ condition: IN0, prunableLists: [0], limit: { countSlot: 0 }, merge: { kind: 'ordered', orderBy: [int(dialect, 'Order_id', 'DESC')] } }),
  },
  {
    comment: 'two ORDER BY keys: one derived, one selected',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` ORDER BY `Order`.`createdAt` DESC, `Order`.`id` ASC LIMIT 20 OFFSET 20',
    planOf: (dialect) => {
      const { key, derived } = datetimeKey(dialect, '`Order`.`createdAt`', 'DESC');
      return select({
        limit: { countSlot: 0, offsetSlot: 1 },
        merge: { kind: 'ordered', orderBy: [key, int(dialect, 'Order_id')], strip: [derived.alias] },
        derivedColumns: [derived],
      });
    },
  },
  {
    comment: 'ORDER BY a text column on SQLite: storage-class order, BINARY text, from the selected alias',
    dialects: ['sqlite'],
    query: 'SELECT `Order`.`id` AS `Order_id`, `Order`.`note` AS `Order_note` FROM `orders` `Order` ORDER BY `Order`.`note` ASC',
    plan: select({ merge: { kind: 'ordered', orderBy: [{ column: 'Order_note', direction: 'ASC', type: 'auto', collation: 'binary' }] } }),
  },
  {
    comment: 'relations + skip/take, first query: SELECT DISTINCT over a derived table holding a binding join',
    query:
      'SELECT DISTINCT `distinctAlias`.`Order_id` AS `ids_Order_id`, `distinctAlias`.`Order_id` FROM ' +
      '(SELECT `Order`.`id` AS `Order_id`, `I`.`id` AS `I_id` FROM `orders` `Order` LEFT JOIN `order_items` `I` ON `I`.`orderId`=`Order`.`id` ' +
      'WHERE ((`Order`.`id` IN (?, ?, ?)))) `distinctAlias` ORDER BY `distinctAlias`.`Order_id` ASC LIMIT 2 OFFSET 1',
    parameters: [1, 2, 5],
    // DISTINCT rows contain the shard key: no row spans shards, so no merge-side DISTINCT and the LIMIT is pushed.
    planOf: (dialect) => select({ condition: IN0, prunableLists: [0], limit: { countSlot: 0, offsetSlot: 1 }, merge: { kind: 'ordered', orderBy: [int(dialect, 'ids_Order_id')] } }),
  },
  {
    comment: 'relations + skip/take with order: { createdAt }: TypeORM orders by the bare "Order_id" too',
    query:
      'SELECT DISTINCT `distinctAlias`.`Order_id` AS `ids_Order_id`, `distinctAlias`.`Order_createdAt` FROM ' +
      '(SELECT `Order`.`id` AS `Order_id`, `Order`.`createdAt` AS `Order_createdAt`, `I`.`id` AS `I_id` FROM `orders` `Order` ' +
      'LEFT JOIN `order_items` `I` ON `I`.`orderId`=`Order`.`id` WHERE `Order`.`id` IN (?, ?, ?)) `distinctAlias` ' +
      'ORDER BY `distinctAlias`.`Order_createdAt` DESC, `Order_id` ASC LIMIT 2 OFFSET 1',
    parameters: [1, 2, 5],
    planOf: (dialect) =>
      select({
        condition: IN0,
        prunableLists: [0],
        limit: { countSlot: 0, offsetSlot: 1 },
        ...(dialect === 'mysql'
          ? {
              merge: {
                kind: 'ordered',
                orderBy: [{ column: '__shard_key_0', direction: 'DESC', type: 'numeric', collation: 'binary' }, int(dialect, 'ids_Order_id')],
                strip: ['__shard_key_0'],
              },
              derivedColumns: [{ expression: '(`distinctAlias`.`Order_createdAt` + 0)', alias: '__shard_key_0', slots: [] }],
            }
          : { merge: { kind: 'ordered', orderBy: [{ column: 'Order_createdAt', direction: 'DESC', type: 'auto', collation: 'binary' }, int(dialect, 'ids_Order_id')] } }),
      }),
  },
  {
    comment: 'count(): COUNT(1) partial counts are added',
    query: 'SELECT COUNT(1) AS `cnt` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?)))',
    parameters: [1, 2],
    plan: select({ condition: IN0, prunableLists: [0], pushLimit: false, merge: { kind: 'concat', groupBy: [], aggregates: [{ alias: 'cnt', fn: 'COUNT' }], columns: ['cnt'] } }),
  },
  {
    comment: 'count() with relations: COUNT(DISTINCT key) (MySQL spelling / SQLite spelling): each key on one shard, partials add up',
    mysql: {
      sql: 'SELECT COUNT(DISTINCT `Order`.`id`) AS `cnt` FROM `orders` `Order` LEFT JOIN `order_items` `I` ON `I`.`orderId`=`Order`.`id` WHERE ((`Order`.`id` IN (?, ?)))',
      parameters: [1, 2],
    },
    sqlite: {
      sql: 'SELECT COUNT(DISTINCT("Order"."id")) AS "cnt" FROM "orders" "Order" LEFT JOIN "order_items" "I" ON "I"."orderId"="Order"."id" WHERE (("Order"."id" IN (1, 2)))',
      parameters: [],
    },
    plan: select({ condition: IN0, prunableLists: [0], pushLimit: false, merge: { kind: 'concat', groupBy: [], aggregates: [{ alias: 'cnt', fn: 'COUNT' }], columns: ['cnt'] } }),
  },
  {
    comment: 'exists(): the sharded table sits in an EXISTS subquery of a dummy table; its WHERE routes',
    query:
      'SELECT 1 AS `row_exists` FROM (SELECT 1 AS dummy_column) `dummy_table` ' +
      'WHERE EXISTS (SELECT 1 FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?)))) LIMIT 1',
    parameters: [1, 2],
    // slots: 1 (row_exists), 1 (dummy_column), 1 (SELECT 1 FROM orders), LIMIT 1
    plan: select({ condition: IN0, prunableLists: [0], limit: { countSlot: 3 } }),
  },
  {
    comment: 'GROUP BY a non-key column: groups span shards, so every shard sends all groups (no LIMIT pushed)',
    query: 'SELECT `Order`.`buyerId` AS `b`, COUNT(`Order`.`id`) AS `cnt` FROM `orders` `Order` GROUP BY `Order`.`buyerId` ORDER BY `Order`.`buyerId` ASC LIMIT 3',
    planOf: (dialect) =>
      select({
        limit: { countSlot: 0 },
        pushLimit: false,
        merge: { kind: 'ordered', orderBy: [int(dialect, 'b')], groupBy: [{ column: 'b', collation: 'binary' }], aggregates: [{ alias: 'cnt', fn: 'COUNT' }] },
      }),
  },
  {
    comment: 'GROUP BY the shard key: every group lives on one shard, so groups are final per shard and LIMIT is pushed',
    query: 'SELECT `Order`.`id` AS `k`, COUNT(`Order`.`buyerId`) AS `cnt` FROM `orders` `Order` GROUP BY `Order`.`id` ORDER BY `Order`.`id` ASC LIMIT 3',
    planOf: (dialect) => select({ limit: { countSlot: 0 }, merge: { kind: 'ordered', orderBy: [int(dialect, 'k')] } }),
  },

  // ── conditions ─────────────────────────────────────────────────────────────────
  {
    comment: 'NOT IN on the key says nothing about where rows are: every shard, whole list',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` NOT IN (?, ?)',
    parameters: [1, 2],
    plan: select({}),
  },
  {
    comment: 'key IN (…) OR other column: unrestricted',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` IN (?, ?) OR `Order`.`buyerId` = ?',
    parameters: [1, 2, 3],
    plan: select({}),
  },
  {
    comment: 'an IN list under an OR restricts the shards but must be sent whole (not prunable)',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE (`Order`.`id` IN (?, ?) AND `Order`.`buyerId` = ?) OR `Order`.`id` = ?',
    parameters: [1, 2, 3, 5],
    plan: select({ condition: { kind: 'or', terms: [IN0, slot(1)] } }),
  },
  {
    comment: 'two AND-ed IN lists on the key: both prunable',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` IN (?, ?) AND `Order`.`id` IN (?, ?)',
    parameters: [1, 5, 9, 2],
    plan: select({
      condition: { kind: 'and', terms: [IN0, { kind: 'values', refs: [{ kind: 'in-list', list: 1 }] }] },
      prunableLists: [0, 1],
    }),
  },
  {
    comment: 'an IN list on another column is not the key',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`buyerId` IN (?, ?) AND `Order`.`id` = ?',
    parameters: [1, 2, 5],
    plan: select({ condition: slot(0) }),
  },
  {
    comment: 'raw SQL with unqualified identifiers and no alias',
    query: 'SELECT `id` FROM `orders` WHERE `id` IN (?, ?)',
    parameters: [1, 2],
    plan: select({ condition: IN0, prunableLists: [0] }),
  },
  {
    comment: 'binding join: the IN list on order_items.orderId routes too',
    query:
      'SELECT `Order`.`id` AS `Order_id`, `I`.`id` AS `I_id` FROM `orders` `Order` INNER JOIN `order_items` `I` ON `I`.`orderId`=`Order`.`id` ' +
      'WHERE `I`.`orderId` IN (?, ?)',
    parameters: [1, 2],
    plan: select({ condition: IN0, prunableLists: [0] }),
  },
  {
    comment: 'join with a broadcast table: routed by the sharded one',
    query:
      'SELECT `Order`.`id` AS `Order_id`, `R`.`name` AS `R_name` FROM `orders` `Order` LEFT JOIN `regions` `R` ON `R`.`id`=`Order`.`regionId` ' +
      'WHERE `Order`.`id` IN (?, ?)',
    parameters: [1, 2],
    plan: select({ condition: IN0, prunableLists: [0] }),
  },
  {
    comment: 'a string shard key',
    query: 'SELECT `C`.`code` AS `c` FROM `codes` `C` WHERE `C`.`code` IN (?, ?)',
    parameters: ['a', 'b'],
    plan: select({ table: 'codes', condition: IN0, prunableLists: [0] }),
  },

  // ── non-sharded statements ─────────────────────────────────────────────────────
  {
    comment: 'broadcast table alone: any one copy answers (the default shard)',
    query: 'SELECT `R`.`id` AS `R_id` FROM `regions` `R` WHERE `R`.`id` IN (?, ?)',
    parameters: [1, 2],
    plan: { kind: 'default-shard', reason: 'no sharded table' },
  },
  {
    comment: 'unsharded table: default shard, not even parsed',
    query: 'SELECT `U`.`id` AS `U_id` FROM `users` `U` WHERE `U`.`id` IN (?, ?)',
    parameters: [1, 2],
    plan: { kind: 'default-shard', reason: 'names no sharded or broadcast table' },
  },
  {
    comment: 'DDL on a sharded table runs on every shard',
    query: 'DROP TABLE `orders`',
    plan: { kind: 'all-shards', reason: 'DDL of a sharded or broadcast table', result: 'default-shard' },
  },

  // ── writes ─────────────────────────────────────────────────────────────────────
  {
    comment: 'update(): UPDATE … WHERE key IN (…)',
    query: 'UPDATE `orders` SET `note` = ? WHERE `id` IN (?, ?)',
    parameters: ['x', 1, 2],
    plan: { kind: 'write', table: 'orders', condition: IN0, prunableLists: [0], limited: false },
  },
  {
    comment: 'delete(): DELETE … WHERE key = ?',
    query: 'DELETE FROM `orders` WHERE `id` = ?',
    parameters: [5],
    plan: { kind: 'write', table: 'orders', condition: slot(0), prunableLists: [], limited: false },
  },
  {
    comment: 'DELETE with an IN list on another column: only the key list is prunable',
    query: 'DELETE FROM `orders` WHERE `id` IN (?, ?) AND `buyerId` IN (?, ?)',
    parameters: [1, 2, 3, 4],
    plan: { kind: 'write', table: 'orders', condition: IN0, prunableLists: [0], limited: false },
  },
  {
    comment: 'UPDATE without a key condition: every shard',
    query: 'UPDATE `orders` SET `note` = ? WHERE `buyerId` = ?',
    parameters: ['x', 7],
    plan: { kind: 'write', table: 'orders', condition: { kind: 'any' }, prunableLists: [], limited: false },
  },
  {
    comment: 'UPDATE of a broadcast table: every copy',
    query: 'UPDATE `regions` SET `name` = ? WHERE `id` = ?',
    parameters: ['x', 1],
    plan: { kind: 'all-shards', reason: 'write to a broadcast table', result: 'copies' },
  },
  {
    comment: 'multi-row INSERT: rows are split at route time by the key column (index 0)',
    query: 'INSERT INTO `orders`(`id`, `buyerId`, `note`) VALUES (?, ?, ?), (?, ?, ?)',
    parameters: [1, 1, 'a', 2, 2, 'b'],
    plan: { kind: 'insert', table: 'orders', distribution: 'sharded', keyColumnIndex: 0 },
  },
  {
    comment: 'INSERT whose key column is not the first one',
    query: 'INSERT INTO `order_items`(`id`, `orderId`, `sku`, `qty`) VALUES (?, ?, ?, ?)',
    parameters: [10, 1, 'x', 1],
    plan: { kind: 'insert', table: 'order_items', distribution: 'sharded', keyColumnIndex: 1 },
  },
  {
    comment: 'INSERT into a broadcast table: every shard',
    query: 'INSERT INTO `regions`(`id`, `name`) VALUES (?, ?)',
    parameters: [1, 'north'],
    plan: { kind: 'all-shards', reason: 'insert into a broadcast table', result: 'copies' },
  },
  {
    comment: 'INSERT into an unsharded table: default shard',
    query: 'INSERT INTO `users`(`id`, `name`) VALUES (?, ?)',
    parameters: [1, 'ann'],
    plan: { kind: 'default-shard', reason: 'names no sharded or broadcast table' },
  },

  // ── transaction control ────────────────────────────────────────────────────────
  { comment: 'MySQL begin', query: 'START TRANSACTION', plan: { kind: 'session', control: 'begin' } },
  { comment: 'SQLite begin', query: 'BEGIN TRANSACTION', plan: { kind: 'session', control: 'begin' } },
  { comment: 'nested transaction', query: 'SAVEPOINT typeorm_1', plan: { kind: 'session', control: 'savepoint' } },
  { comment: 'nested commit', query: 'RELEASE SAVEPOINT typeorm_1', plan: { kind: 'session', control: 'release-savepoint' } },
  { comment: 'nested rollback', query: 'ROLLBACK TO SAVEPOINT typeorm_1', plan: { kind: 'session', control: 'rollback-to-savepoint' } },
  { comment: 'commit', query: 'COMMIT', plan: { kind: 'session', control: 'commit' } },
  { comment: 'rollback', query: 'ROLLBACK', plan: { kind: 'session', control: 'rollback' } },
  {
    comment: 'MySQL isolation level before START TRANSACTION',
    dialects: ['mysql'],
    query: 'SET TRANSACTION ISOLATION LEVEL READ COMMITTED',
    plan: { kind: 'session', control: 'set-isolation' },
  },
  // SQLite's read_uncommitted is connection state, not a next-transaction setting: set and
  // read on every shard's connection at once, as on one database (TypeORM sends the set form
  // before BEGIN). MySQL has no PRAGMA: the server answers it with its own error.
  ...['PRAGMA read_uncommitted = true', 'PRAGMA read_uncommitted(1)', 'PRAGMA read_uncommitted'].map((query) => ({
    comment: `SQLite: ${query}`,
    dialects: ['sqlite'] as const,
    query,
    plan: { kind: 'all-shards', reason: 'PRAGMA applies per database', result: 'default-shard' },
  })),
  {
    comment: 'MySQL: PRAGMA goes to the server, which refuses it; nothing is swallowed',
    dialects: ['mysql'],
    query: 'PRAGMA read_uncommitted = 1',
    plan: { kind: 'all-shards', reason: 'PRAGMA applies per database', result: 'default-shard' },
  },

  // ── unsupported ────────────────────────────────────────────────────────────────
  {
    comment: 'sharded ⨝ unsharded: the unsharded rows live on the default shard only',
    query: 'SELECT `Order`.`id` AS `Order_id`, `U`.`id` AS `U_id` FROM `orders` `Order` LEFT JOIN `users` `U` ON `U`.`id`=`Order`.`buyerId`',
    error: { name: 'UnsupportedShardingError', message: 'together with unsharded table "users"' },
  },
  {
    comment: 'two sharded tables joined on something other than their keys',
    query: 'SELECT `Order`.`id` AS `Order_id`, `I`.`id` AS `I_id` FROM `orders` `Order` LEFT JOIN `order_items` `I` ON `I`.`id`=`Order`.`id`',
    error: { name: 'UnsupportedShardingError', message: 'without equating their shard keys' },
  },
  {
    comment: 'two sharded tables joined on their keys but partitioned by different algorithms',
    query: 'SELECT `Order`.`id` AS `Order_id`, `C`.`id` AS `C_id` FROM `orders` `Order` INNER JOIN `customers` `C` ON `C`.`id`=`Order`.`id`',
    error: { name: 'UnsupportedShardingError', message: 'different sharding algorithms' },
  },
  {
    comment: 'UPDATE of the shard key routed by one key value: allowed at plan time, checked per statement (the new value must be the routed one)',
    query: 'UPDATE `orders` SET `id` = ? WHERE `id` = ?',
    parameters: [1, 2],
    plan: { kind: 'write', table: 'orders', condition: slot(1), prunableLists: [], limited: false, keyAssignment: 0 },
  },
  {
    comment: 'UPDATE of the shard key of rows chosen by another column would move rows between shards',
    query: 'UPDATE `orders` SET `id` = ? WHERE `buyerId` = ?',
    parameters: [1, 2],
    error: { name: 'UnsupportedShardingError', message: 'UPDATE of the shard key "id"' },
  },
  {
    comment: 'INSERT without the key column',
    query: 'INSERT INTO `orders`(`buyerId`, `note`) VALUES (?, ?)',
    parameters: [1, 'a'],
    error: { name: 'UnsupportedShardingError', message: 'must list the shard-key column "id"' },
  },
  {
    comment: 'INSERT … SELECT into a sharded table',
    query: 'INSERT INTO `orders`(`id`, `buyerId`) SELECT `id`, `buyerId` FROM `orders` WHERE `id` = ?',
    parameters: [1],
    error: { name: 'UnsupportedShardingError', message: 'INSERT … SELECT into sharded table "orders"' },
  },
  {
    comment: 'UNION over sharded tables: each SELECT runs on its own (more cases in analyze-compound.test.ts)',
    query: 'SELECT `id` FROM `orders` WHERE `id` = ? UNION SELECT `id` FROM `orders` WHERE `id` = ?',
    parameters: [1, 2],
    planOf: (dialect) => {
      const branch = { sharded: true, names: ['__shard_c0'], unaliased: [0], ownNames: ['id'], columns: [{ kind: 'typed', type: { family: dialect === 'mysql' ? 'bigint' : '', collation: dialect === 'mysql' ? undefined : 'BINARY', aggregate: false } }] };
      return { kind: 'compound', operators: [{ op: 'UNION', all: false }], branches: [branch, branch], names: ['id'], orderBy: [], limit: undefined };
    },
  },
];

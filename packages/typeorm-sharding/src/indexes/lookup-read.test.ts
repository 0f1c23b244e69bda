import { describe, expect, it } from 'vitest';
import { fakeRules, shardNamesOf, type FakeTable } from '../plan/testing/fake-rules.js';
import type { GlobalIndex } from '../rules/index.js';
import { LookupReads, type LookupReadTargets } from './lookup-read.js';

const SHARDS = shardNamesOf(8);
const TABLES: FakeTable[] = [
  { table: 'users', distribution: 'sharded', columns: { id: 'int', email: 'varchar' }, key: { column: 'id' } },
  { table: 'users__gidx_email', distribution: 'sharded', columns: { email: 'varchar', id: 'int' }, key: { column: 'email', algorithm: 'hash', kind: 'string' } },
  { table: 'items__gidx_shopId_sku', distribution: 'sharded', columns: { shopId: 'int', sku: 'varchar', id: 'int' }, key: { column: 'shopId' } },
];
const rules = fakeRules(TABLES, SHARDS);
const index = (lookupTable: string, columns: string[]): GlobalIndex =>
  ({ unique: true, table: lookupTable.split('__')[0], owner: {} as never, label: 'unique key', indexName: 'UQ', columns, ownerColumn: 'id', lookupTable }) as GlobalIndex;
const EMAIL = index('users__gidx_email', ['email']);
const SKU = index('items__gidx_shopId_sku', ['shopId', 'sku']);
const shardOfEmail = (email: string) => rules.ruleOf('users__gidx_email')!.shardKey!.algorithm.shardIndexOf(email);

const ONE_SERVER: LookupReadTargets = { shardCount: 8, databaseOf: (s) => `db_${s}` };
const reads = (targets: LookupReadTargets = ONE_SERVER, dialect: 'mysql' | 'sqlite' = 'mysql') => new LookupReads(rules, dialect, targets);

/** Two emails that live on different lookup shards. */
function twoShards(): [string, string] {
  const a = 'a@x';
  for (let i = 0; ; i++) {
    const b = `b${i}@x`;
    if (shardOfEmail(b) !== shardOfEmail(a)) return [a, b];
  }
}

describe('LookupReads', () => {
  it('reads one value with one point statement on its lookup shard, qualified with the database', () => {
    const [statement, ...more] = reads().statementsOf(EMAIL, [['a@x']]);
    expect(more).toEqual([]);
    const shard = shardOfEmail('a@x');
    expect(statement).toEqual({ shard, sql: `SELECT \`email\`, \`id\` FROM \`db_${shard}\`.\`users__gidx_email\` WHERE \`email\` = ?`, parameters: ['a@x'], qualified: true });
  });

  it('gives each lookup shard only its own values, in shard order', () => {
    const [a, b] = twoShards();
    const statements = reads().statementsOf(EMAIL, [[b, a, 'a@x']]);
    const byShard = new Map(statements.map((s) => [s.shard, s]));
    expect([...byShard.keys()]).toEqual([shardOfEmail(a), shardOfEmail(b)].sort((x, y) => x - y));
    expect(byShard.get(shardOfEmail(a))!.parameters).toEqual([a, 'a@x']);
    expect(byShard.get(shardOfEmail(a))!.sql).toMatch(/WHERE `email` IN \(\?, \?\)$/);
    expect(byShard.get(shardOfEmail(b))!.parameters).toEqual([b]);
  });

  it('sends one server\'s lookup statements as one UNION ALL, and one statement per server otherwise', () => {
    const [a, b] = twoShards();
    const one = reads({ ...ONE_SERVER, coalesce: { serverOf: () => 'a', maxBranches: 16 } }).statementsOf(EMAIL, [[a, b]]);
    expect(one).toHaveLength(1);
    expect(one[0]!.branches).toHaveLength(2);
    expect(one[0]!.sql).toContain(') UNION ALL (');
    const two = reads({ ...ONE_SERVER, coalesce: { serverOf: (s) => (s === shardOfEmail(a) ? 'a' : 'b'), maxBranches: 16 } }).statementsOf(EMAIL, [[a, b]]);
    expect(two.map((s) => s.branches)).toEqual([undefined, undefined]);
  });

  it('cuts the first column of a composite index per shard and sends the other columns whole', () => {
    const statements = reads().statementsOf(SKU, [[1, 9, 2], ['k', 'm']]);
    // shopId is the lookup table's key, mod over 8 shards: 1 and 9 on shard 1, 2 on shard 2.
    expect(statements.map((s) => [s.shard, s.parameters])).toEqual([
      [1, [1, 9, 'k', 'm']],
      [2, [2, 'k', 'm']],
    ]);
    expect(statements[0]!.sql).toBe('SELECT `shopId`, `sku`, `id` FROM `db_1`.`items__gidx_shopId_sku` WHERE `shopId` IN (?, ?) AND `sku` IN (?, ?)');
    expect(statements[1]!.sql).toBe('SELECT `shopId`, `sku`, `id` FROM `db_2`.`items__gidx_shopId_sku` WHERE `shopId` = ? AND `sku` IN (?, ?)');
  });

  it('asks every lookup shard for a value that names no key, as the planner routes it', () => {
    const statements = reads().statementsOf(SKU, [['5abc', 3], ['k']]);
    expect(statements.map((s) => s.shard)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(statements[3]!.parameters).toEqual([3, '5abc', 'k']);
    expect(statements[0]!.parameters).toEqual(['5abc', 'k']);
  });

  it('writes SQLite statements unqualified, with its own quoting', () => {
    const [statement] = reads({ shardCount: 8, databaseOf: () => undefined }, 'sqlite').statementsOf(EMAIL, [['a@x']]);
    expect(statement).toEqual({ shard: shardOfEmail('a@x'), sql: 'SELECT "email", "id" FROM "users__gidx_email" WHERE "email" = ?', parameters: ['a@x'] });
  });
});

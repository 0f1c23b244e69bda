import { describe, expect, it } from 'vitest';
import { ParameterizeCache } from '../parameterize/index.js';
import { analyze } from '../plan/analyze.js';
import { fakeRules, shardNamesOf, type FakeTable } from '../plan/testing/fake-rules.js';
import { ShardingRules, type GlobalIndex } from '../rules/index.js';
import { lookupSiteOf, lookupValuesOf } from './lookup-routing.js';

const SHARDS = shardNamesOf(4);
const TABLES: FakeTable[] = [
  { table: 'users', distribution: 'sharded', columns: { id: 'int', email: 'varchar', nick: 'varchar', city: 'varchar' }, key: { column: 'id' } },
  { table: 'users__gidx_email', distribution: 'sharded', columns: { email: 'varchar', id: 'int' }, key: { column: 'email', algorithm: 'hash', kind: 'string' } },
  { table: 'users__glookup_city', distribution: 'sharded', columns: { city: 'varchar', id: 'int' }, key: { column: 'city', algorithm: 'hash', kind: 'string' } },
];
const index = (lookupTable: string, column: string, unique: boolean): GlobalIndex =>
  ({ unique, table: 'users', owner: {} as never, label: 'unique key', indexName: 'UQ', columns: [column], ownerColumn: 'id', lookupTable }) as GlobalIndex;
const EMAIL = index('users__gidx_email', 'email', true);
const CITY = index('users__glookup_city', 'city', false);
const rules = new ShardingRules([...fakeRules(TABLES, SHARDS).all()], SHARDS, undefined, [EMAIL, CITY]);
const texts = new ParameterizeCache('mysql');

function siteOf(sql: string, parameters: unknown[]) {
  const p = texts.parameterize(sql, parameters);
  const plan = analyze(p, rules, 'mysql');
  if (plan.kind !== 'select') throw new Error(`planned as ${plan.kind}`);
  const site = lookupSiteOf(plan, p, rules);
  return site && { table: site.index.lookupTable, rememberable: site.rememberable, values: lookupValuesOf(site, p) };
}

describe('lookupSiteOf', () => {
  it.each([
    ['one email', 'SELECT `id` FROM `users` WHERE `email` = ?', ['a@x'], { table: 'users__gidx_email', rememberable: true, values: [['a@x']] }],
    ['an email under ANDs, ordered and paged', 'SELECT * FROM `users` `u` WHERE `u`.`nick` = ? AND `u`.`email` = ? ORDER BY `id` LIMIT 1', ['n', 'a@x'], { table: 'users__gidx_email', rememberable: true, values: [['a@x']] }],
    ['grouped: a row only for a matching row', 'SELECT `email`, COUNT(*) FROM `users` WHERE `email` = ? GROUP BY `email`', ['a@x'], { table: 'users__gidx_email', rememberable: true, values: [['a@x']] }],
    ['IN of emails: rows cannot be told apart by value', 'SELECT `id` FROM `users` WHERE `email` IN (?, ?)', ['a@x', 'b@x'], { table: 'users__gidx_email', rememberable: false, values: [['a@x', 'b@x']] }],
    ['COUNT without GROUP BY: a row when nothing matches', 'SELECT COUNT(*) FROM `users` WHERE `email` = ?', ['a@x'], { table: 'users__gidx_email', rememberable: false, values: [['a@x']] }],
    ['a locking read', 'SELECT `id` FROM `users` WHERE `email` = ? FOR UPDATE', ['a@x'], { table: 'users__gidx_email', rememberable: false, values: [['a@x']] }],
    ['a lookup index: many rows may share the value', 'SELECT `id` FROM `users` WHERE `city` = ?', ['Oslo'], { table: 'users__glookup_city', rememberable: false, values: [['Oslo']] }],
    ['a unique index is preferred to a lookup index', 'SELECT `id` FROM `users` WHERE `city` = ? AND `email` = ?', ['Oslo', 'a@x'], { table: 'users__gidx_email', rememberable: true, values: [['a@x']] }],
  ])('%s', (_, sql, parameters, expected) => {
    expect(siteOf(sql, parameters)).toEqual(expected);
  });

  it.each([
    ['the shard key pins it already', 'SELECT `id` FROM `users` WHERE `email` = ? AND `id` = ?', ['a@x', 1]],
    ['an OR over the indexed column', 'SELECT `id` FROM `users` WHERE `email` = ? OR `nick` = ?', ['a@x', 'n']],
    ['no indexed column', 'SELECT `id` FROM `users` WHERE `nick` = ?', ['n']],
  ])('none: %s', (_, sql, parameters) => {
    expect(siteOf(sql, parameters)).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { parameterize, type SqlDialect } from '../../parameterize/index.js';
import { analyze } from '../../plan/analyze.js';
import { fakeRules } from '../../plan/testing/fake-rules.js';
import { DIALECTS, typeormSql } from '../../plan/testing/typeorm-sql.js';
import { routeByKey } from '../../route/index.js';
import { rewriteUnits } from '../rewriter.js';
import { rewriteContextOf } from '../testing/rewrite-context.js';

// An OR whose terms each name their own shard (TypeORM's findBy() of composite keys): each shard
// is sent only its own terms, with only their parameters. order_items is sharded by orderId, mod 4.

const rules = fakeRules();
const SETTINGS = { pruning: true, maxInValuesPerQuery: 256 };

/** parameterize → analyze → routeByKey → rewriteUnits, as the engine wires them. */
function statements(sql: string, parameters: readonly unknown[], dialect: SqlDialect = 'mysql'): [string, string, unknown[]][] {
  const p = parameterize(sql, parameters, dialect);
  const plan = analyze(p, rules, dialect);
  if (plan.kind !== 'select' && plan.kind !== 'write') throw new Error(`not a routed plan: ${plan.kind}`);
  const route = routeByKey(plan.condition, plan.prunableLists, p, rules.ruleOf(plan.table)!.shardKey!, 4, SETTINGS, plan.prunableOrs);
  if (route.kind === 'nowhere') return [];
  return rewriteUnits(route.units, rewriteContextOf(plan, p, dialect, route.units.length > 1)).map((s) => [`s${s.shard}`, s.sql, [...s.parameters]]);
}

const term = '(`I`.`id` = ? AND `I`.`orderId` = ?)';
const findBy = (n: number) => `SELECT \`I\`.\`id\` AS \`I_id\` FROM \`order_items\` \`I\` WHERE (${Array.from({ length: n }, () => term).join(' OR ')})`;

describe('prunable ORs: each shard gets only its own terms', () => {
  it('four composite keys on three shards', () => {
    const out = statements(findBy(4), [10, 1, 11, 5, 12, 2, 13, 3]);
    expect(out).toEqual([
      // The listed keys' column is added for the merge (rows come back in the listed order).
      ['s1', 'SELECT `I`.`id` AS `I_id` , `I`.`orderId` AS `__shard_listed_0` FROM `order_items` `I` WHERE ((`I`.`id` = ? AND `I`.`orderId` = ?) OR (`I`.`id` = ? AND `I`.`orderId` = ?) )', [10, 1, 11, 5]],
      ['s2', 'SELECT `I`.`id` AS `I_id` , `I`.`orderId` AS `__shard_listed_0` FROM `order_items` `I` WHERE ( (`I`.`id` = ? AND `I`.`orderId` = ?) )', [12, 2]],
      ['s3', 'SELECT `I`.`id` AS `I_id` , `I`.`orderId` AS `__shard_listed_0` FROM `order_items` `I` WHERE ( (`I`.`id` = ? AND `I`.`orderId` = ?))', [13, 3]],
    ]);
  });

  it('a shard whose terms are first, in the middle or last keeps exactly those (every split of six terms over two shards)', () => {
    for (let mask = 1; mask < 63; mask++) {
      const keys = Array.from({ length: 6 }, (_, t) => ((mask >> t) & 1 ? 1 : 2));
      const out = statements(findBy(6), keys.flatMap((k, t) => [100 + t, k]));
      for (const [shard, sql, parameters] of out) {
        const own = keys.map((k, t) => [k, t] as const).filter(([k]) => `s${k}` === shard);
        expect(parameters, `${mask} ${shard}`).toEqual(own.flatMap(([k, t]) => [100 + t, k]));
        expect(sql.split(' OR ').length, sql).toBe(own.length);
        expect(sql).toMatch(/WHERE \( ?\(`I`[^()]*\)( OR \(`I`[^()]*\))* ?\)$/);
      }
      expect(out.length).toBe(new Set(keys).size);
    }
  });

  it('2,000 keys: every tuple goes to one shard only, its own', () => {
    const n = 2000;
    const parameters = Array.from({ length: n }, (_, t) => [t, (t * 7) % 97]).flat();
    const out = statements(findBy(n), parameters);
    expect(out.map(([, , ps]) => ps.length).reduce((a, b) => a + b, 0)).toBe(2 * n);
    for (const [shard, , ps] of out) for (let i = 1; i < ps.length; i += 2) expect(`s${Number(ps[i]) % 4}`).toBe(shard);
  });

  it('a term that names no one shard (`orderId = ?` with a non-key value) goes everywhere', () => {
    const out = statements(findBy(3), [1, 1, 2, 2.5, 3, 2]);
    expect(out.map(([s, , ps]) => [s, ps])).toEqual([
      ['s0', [2, 2.5]],
      ['s1', [1, 1, 2, 2.5]],
      ['s2', [2, 2.5, 3, 2]],
      ['s3', [2, 2.5]],
    ]);
  });

  it('an OR AND-ed with a filter (TypeORM adds `deletedAt IS NULL`) is cut too; one under NOT or another OR is not', () => {
    const filtered = `SELECT \`I\`.\`id\` AS \`I_id\` FROM \`order_items\` \`I\` WHERE (${term} OR ${term}) AND (\`I\`.\`sku\` IS NULL)`;
    expect(statements(filtered, [1, 1, 2, 2]).map(([s, , ps]) => [s, ps])).toEqual([
      ['s1', [1, 1]],
      ['s2', [2, 2]],
    ]);
    const negated = `SELECT \`I\`.\`id\` AS \`I_id\` FROM \`order_items\` \`I\` WHERE NOT (${term} OR ${term})`;
    expect(statements(negated, [1, 1, 2, 2]).map(([, , ps]) => ps)).toEqual([[1, 1, 2, 2], [1, 1, 2, 2], [1, 1, 2, 2], [1, 1, 2, 2]]);
  });

  it('an OR without parentheses of its own, or with a term that holds an OR, is sent whole (the terms cannot be told apart in the text)', () => {
    const bare = 'SELECT `I`.`id` AS `I_id` FROM `order_items` `I` WHERE `I`.`orderId` = ? OR `I`.`orderId` = ?';
    expect(statements(bare, [1, 2]).map(([, , ps]) => ps)).toEqual([[1, 2], [1, 2]]);
    const nested = `SELECT \`I\`.\`id\` AS \`I_id\` FROM \`order_items\` \`I\` WHERE ((\`I\`.\`orderId\` = ? AND (\`I\`.\`sku\` = ? OR \`I\`.\`sku\` IS NULL)) OR ${term})`;
    expect(statements(nested, [1, 'a', 5, 2]).map(([, , ps]) => ps)).toEqual([[1, 'a', 5, 2], [1, 'a', 5, 2]]);
  });

  it.each(DIALECTS)('%s: literals written into the text (SQLite) are cut with their terms', (dialect) => {
    const sql = typeormSql(findBy(2), [1, 1, 2, 2], dialect);
    const out = statements(sql.sql, sql.parameters, dialect);
    expect(out.length).toBe(2);
    for (const [shard, text] of out) expect(text.split(' OR ').length, `${shard}: ${text}`).toBe(1);
  });

  it('DELETE by composite keys', () => {
    const out = statements('DELETE FROM `order_items` WHERE ((`id` = ? AND `orderId` = ?) OR (`id` = ? AND `orderId` = ?))', [1, 1, 2, 2]);
    expect(out).toEqual([
      ['s1', 'DELETE FROM `order_items` WHERE ((`id` = ? AND `orderId` = ?) )', [1, 1]],
      ['s2', 'DELETE FROM `order_items` WHERE ( (`id` = ? AND `orderId` = ?))', [2, 2]],
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { ShardingInternalError } from '../../errors/index.js';
import { ParameterizeCache, type SqlDialect } from '../../parameterize/index.js';
import { analyze } from '../analyze.js';
import { fakeRules } from '../testing/fake-rules.js';
import { bindCompound } from './bind-compound.js';
import type { CompoundPlan } from './compound-plan.js';

const rules = fakeRules();
const quoted = (sql: string, dialect: SqlDialect) => (dialect === 'mysql' ? sql : sql.replace(/`/g, '"'));

describe.each(['mysql', 'sqlite'] as const)('bindCompound (%s)', (dialect) => {
  const sql = quoted('SELECT `id`, note AS n FROM orders WHERE id = ? UNION ALL SELECT id + ?, name FROM customers WHERE id > ?', dialect);

  it('binds every SELECT to its own values, as written and with the planned aliases', () => {
    const texts = new ParameterizeCache(dialect);
    const first = texts.parameterize(sql, [1, 10, 20]);
    const plan = analyze(first, rules, dialect) as CompoundPlan;
    const quote = dialect === 'mysql' ? '`' : '"';
    expect(bindCompound(plan, first, dialect).map((b) => [b.own.sql, b.named.sql, b.named.parameters])).toEqual([
      [quoted('SELECT `id`, note AS n FROM orders WHERE id = ?', dialect), quoted('SELECT `id` AS `__shard_c0`, note AS n FROM orders WHERE id = ?', dialect), [1]],
      [`SELECT id + ?, name FROM customers WHERE id > ?`, `SELECT id + ? AS ${quote}__shard_c0${quote}, name AS ${quote}__shard_c1${quote} FROM customers WHERE id > ?`, [10, 20]],
    ]);
  });

  it('a second binding of the same text (its facts worked out once, shared through the memo) gets its own values', () => {
    const texts = new ParameterizeCache(dialect);
    const first = texts.parameterize(sql, [1, 10, 20]);
    const plan = analyze(first, rules, dialect) as CompoundPlan;
    const bound = bindCompound(plan, first, dialect);
    const second = texts.parameterize(sql, [2, 30, 40]);
    expect(second.memo).toBe(first.memo);
    const again = bindCompound(plan, second, dialect);
    expect(again.map((b) => b.named.parameters)).toEqual([[2], [30, 40]]);
    // The item spans are the same objects: found once for the text.
    expect(again[1]!.own.items).toBe(bound[1]!.own.items);
  });

  it('a text that no longer splits as planned is a bug, not a silent wrong split', () => {
    const texts = new ParameterizeCache(dialect);
    const plan = analyze(texts.parameterize(sql, [1, 10, 20]), rules, dialect) as CompoundPlan;
    const other = texts.parameterize(quoted('SELECT id FROM orders WHERE id = ?', dialect), [1]);
    expect(() => bindCompound(plan, other, dialect)).toThrow(ShardingInternalError);
  });
});

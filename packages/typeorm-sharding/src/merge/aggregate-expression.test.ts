import { describe, expect, it } from 'vitest';
import { parameterize, type SqlDialect } from '../parameterize/index.js';
import { analyze } from '../plan/analyze.js';
import type { SelectPlan } from '../plan/plan.js';
import { bindMerge } from '../plan/select/bind-merge.js';
import { paginationOf } from '../plan/select/pagination.js';
import { fakeRules } from '../plan/testing/fake-rules.js';
import { routeByKey } from '../route/index.js';
import { rewriteUnits } from '../rewrite/rewriter.js';
import { rewriteContextOf } from '../rewrite/testing/rewrite-context.js';
import { buildMerge } from './build-merge.js';
import { collectRows } from './collect-rows.js';
import type { Row } from './row.js';
import { fakeInput } from './testing/fake-input.js';

// The pure stages alone (issue 14: these were caught only by integration tests, some only on
// MariaDB): an aggregate inside an expression, and NULLS FIRST / LAST under DESC, from the
// statement through the plan and the shards' statements to the merged rows.

const rules = fakeRules();

function planned(sql: string, dialect: SqlDialect) {
  const p = parameterize(sql, [], dialect);
  const plan = analyze(p, rules, dialect) as SelectPlan;
  const route = routeByKey(plan.condition, plan.prunableLists, p, rules.ruleOf(plan.table)!.shardKey!, 4, { pruning: true, maxInValuesPerQuery: 256 });
  if (route.kind !== 'units') throw new Error('routed nowhere');
  const statements = rewriteUnits(route.units, rewriteContextOf(plan, p, dialect, true));
  const merge = (parts: readonly (readonly Row[])[]) => collectRows(buildMerge(bindMerge(plan, p, dialect, paginationOf(plan.limit, plan.pushLimit, p)), parts.map((rows, i) => fakeInput(rows, { name: `s${i}` }))));
  return { plan, statements, merge };
}

describe('an aggregate inside an expression', () => {
  it('COALESCE(SUM(qty), 0) + 1 and COUNT(*) * 2: the shards send the bare aggregates, the merge computes the expressions once over their totals', async () => {
    const { statements, merge } = planned('SELECT COALESCE(SUM(qty), 0) + 1 AS s, COUNT(*) * 2 AS c FROM order_items', 'mysql');
    expect(statements).toHaveLength(4);
    for (const s of statements) expect(s.sql).toMatch(/SUM\(`qty`\) AS `__shard_agg_0`.*COUNT\(\*\) AS `__shard_agg_2`/);
    // What the shards answer (TypeORM's mysql2: SUM of an INT as DECIMAL text, COUNT, a BIGINT, as text too); their own s and c are partial and ignored.
    const shard = (sum: string | null, count: string): Row[] => [{ s: 'partial', c: 'partial', __shard_agg_0: sum, __shard_group_1: 1, __shard_agg_2: count }];
    const rows = await merge([shard('10', '3'), shard(null, '0'), shard('5', '2'), shard('7', '1')]);
    // COUNT(*) * 2 is a BIGINT: text, as TypeORM's mysql2 settings (bigNumberStrings) return it.
    expect(rows).toEqual([{ s: '23', c: '12' }]);
  });

  it('every shard empty: SUM is NULL, so COALESCE gives 0 + 1, and COUNT is 0', async () => {
    const { merge } = planned('SELECT COALESCE(SUM(qty), 0) + 1 AS s, COUNT(*) * 2 AS c FROM order_items', 'mysql');
    const empty: Row[] = [{ s: '1', c: '0', __shard_agg_0: null, __shard_group_1: null, __shard_agg_2: '0' }];
    expect(await merge([empty, empty, empty, empty])).toEqual([{ s: '1', c: '0' }]);
  });
});

describe('NULLS FIRST / NULLS LAST under DESC (SQLite)', () => {
  it('the plan keeps the nulls placement with the direction, the shards get the clause as written', () => {
    const { plan, statements } = planned('SELECT id, note FROM orders ORDER BY note DESC NULLS FIRST, id LIMIT 3', 'sqlite');
    expect(plan.merge).toMatchObject({ kind: 'ordered', orderBy: [{ column: 'note', direction: 'DESC', nulls: 'first' }, { column: 'id', direction: 'ASC' }] });
    expect(plan.merge?.kind === 'ordered' && plan.merge.orderBy[1]!.nulls).toBeUndefined();
    for (const s of statements) expect(s.sql).toMatch(/ORDER BY note DESC NULLS FIRST, id LIMIT 3$/);
  });

  it('the merge puts NULLs first though DESC would put them last, and LAST under DESC keeps them last', async () => {
    const first = planned('SELECT id, note FROM orders ORDER BY note DESC NULLS FIRST, id LIMIT 3', 'sqlite');
    // Each shard's rows in its own order (as the clause sorts them there).
    const parts = [
      [{ id: 1, note: null }, { id: 5, note: 'b' }],
      [{ id: 2, note: 'c' }, { id: 6, note: 'a' }],
      [{ id: 3, note: null }, { id: 7, note: 'a' }],
      [{ id: 4, note: 'd' }],
    ];
    expect((await first.merge(parts)).map((r) => r.id)).toEqual([1, 3, 4]);
    const last = planned('SELECT id, note FROM orders ORDER BY note DESC NULLS LAST, id', 'sqlite');
    const lastParts = [[{ id: 5, note: 'b' }, { id: 1, note: null }], [{ id: 2, note: 'c' }, { id: 6, note: 'a' }], [{ id: 7, note: 'a' }, { id: 3, note: null }], [{ id: 4, note: 'd' }]];
    expect((await last.merge(lastParts)).map((r) => r.id)).toEqual([4, 2, 5, 6, 7, 1, 3]);
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UnsupportedShardingError } from '../errors/index.js';
import { parameterize } from '../parameterize/index.js';
import { checkKeyAssignment, routeByKey } from '../route/index.js';
import { checkScatter } from '../route/scatter-check.js';
import { analyze } from './analyze.js';
import { fakeRules } from './testing/fake-rules.js';

// The README's list of what is refused (between `<!-- refusals:start -->` and `<!-- refusals:end -->`)
// is checked against the planner: each line's example must be refused with UnsupportedShardingError,
// whether at planning or when routed to the fake rules' four shards (the tables of
// plan/testing/fake-rules.ts). A refusal added to the code without a line, or a line the code no
// longer refuses, shows in review: the second fails here.

const README = new URL('../../../../README.md', import.meta.url);
const rules = fakeRules();

/** The list's lines as [description, SQL]; `x{n}` in the SQL stands for x written n times. */
function listedRefusals(): [string, string][] {
  const text = readFileSync(README, 'utf8');
  const start = text.indexOf('<!-- refusals:start -->');
  const end = text.indexOf('<!-- refusals:end -->');
  if (start < 0 || end < start) throw new Error('README.md has no refusals list');
  return text
    .slice(start, end)
    .split('\n')
    .filter((line) => line.startsWith('- '))
    .map((line) => {
      const at = line.lastIndexOf(': `');
      if (at < 0 || !line.endsWith('`')) throw new Error(`a README refusal line without an example: ${line}`);
      const sql = line.slice(at + 3, -1).replace(/(\(|\)|[^(){}]+?)\{(\d+)\}/g, (_m, x: string, n: string) => x.repeat(Number(n)));
      return [line.slice(2, at), sql];
    });
}

/** The refusal the statement meets on the way to running on four shards, if any. */
function refusalOf(sql: string): unknown {
  try {
    const p = parameterize(sql, Array.from(sql.matchAll(/\?/g), () => 1), 'mysql');
    const plan = analyze(p, rules, 'mysql');
    if (plan.kind !== 'select' && plan.kind !== 'write') return undefined;
    const key = rules.ruleOf(plan.table)!.shardKey!;
    if (plan.kind === 'write') checkKeyAssignment(plan, p, key);
    const route = routeByKey(plan.condition, plan.prunableLists, p, key, 4, { pruning: true, maxInValuesPerQuery: 256 });
    if (route.kind === 'units') checkScatter(plan, route.units, sql, p.verb);
    return undefined;
  } catch (error) {
    return error;
  }
}

describe("the README's list of refusals", () => {
  const listed = listedRefusals();

  it('has its lines', () => {
    expect(listed.length).toBeGreaterThan(20);
  });

  it.each(listed)('%s: refused', (_what, sql) => {
    expect(refusalOf(sql)).toBeInstanceOf(UnsupportedShardingError);
  });
});

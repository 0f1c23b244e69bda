import { describe, expect, it } from 'vitest';
import { coalesce, type CoalesceSettings } from './coalesce.js';
import type { PhysicalStatement } from './physical-statement.js';

const onServer = (servers: Record<number, string>): CoalesceSettings['serverOf'] => (shard) => servers[shard]!;
const statement = (shard: number, sql: string, parameters: unknown[] = [], qualified = true): PhysicalStatement => ({ shard, sql, parameters, qualified });

const settings = (overrides: Partial<CoalesceSettings> = {}): CoalesceSettings => ({
  serverOf: onServer({ 0: 'A', 1: 'B', 2: 'A', 3: 'B', 4: 'A' }),
  maxBranches: 16,
  order: undefined,
  rowLimit: undefined,
  ...overrides,
});

describe('coalesce', () => {
  it('joins the statements of each server into one UNION ALL, parameters in branch order, shard order kept', () => {
    const out = coalesce([statement(0, 'SELECT a FROM `d0`.t WHERE k = ?', [1]), statement(1, 'SELECT a FROM `d1`.t WHERE k = ?', [2]), statement(2, 'SELECT a FROM `d2`.t WHERE k = ?', [3])], settings());
    expect(out.map((s) => [s.shard, s.sql, s.parameters, s.branches?.map((b) => b.shard)])).toEqual([
      [0, '(SELECT a FROM `d0`.t WHERE k = ?) UNION ALL (SELECT a FROM `d2`.t WHERE k = ?)', [1, 3], [0, 2]],
      [1, 'SELECT a FROM `d1`.t WHERE k = ?', [2], undefined],
    ]);
  });

  it('sorts each server\'s rows by the merge\'s keys and cuts them to the page the merge can use', () => {
    const out = coalesce([statement(0, 'SELECT a, b FROM `d0`.t ORDER BY a DESC LIMIT 0, 7'), statement(2, 'SELECT a, b FROM `d2`.t ORDER BY a DESC LIMIT 0, 7')], settings({ order: [{ column: 'a', direction: 'DESC' }, { column: 'b`x', direction: 'ASC' }], rowLimit: 7n }));
    expect(out[0]!.sql).toBe('(SELECT a, b FROM `d0`.t ORDER BY a DESC LIMIT 0, 7) UNION ALL (SELECT a, b FROM `d2`.t ORDER BY a DESC LIMIT 0, 7) ORDER BY `a` DESC, `b``x` ASC LIMIT 7');
  });

  it('starts a new statement after maxBranches branches', () => {
    const out = coalesce([0, 2, 4].map((shard) => statement(shard, `S${shard}`)), settings({ maxBranches: 2 }));
    expect(out.map((s) => s.sql)).toEqual(['(S0) UNION ALL (S2)', 'S4']);
  });

  it('leaves statements that are not database-qualified alone (they need their shard as the default database)', () => {
    const out = coalesce([statement(0, 'S0', [], false), statement(2, 'S2'), statement(4, 'S4')], settings());
    expect(out.map((s) => s.sql)).toEqual(['S0', '(S2) UNION ALL (S4)']);
  });

  it('keeps exact-integer reading on the coalesced statement', () => {
    const out = coalesce([{ ...statement(0, 'S0'), exactIntegers: true }, { ...statement(2, 'S2'), exactIntegers: true }], settings());
    expect(out[0]!.exactIntegers).toBe(true);
  });
});

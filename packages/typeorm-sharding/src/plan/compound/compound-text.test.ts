import { describe, expect, it } from 'vitest';
import type { SqlDialect } from '../../parameterize/index.js';
import { branchStatement, splitCompound } from './compound-text.js';

interface SplitCase {
  readonly name: string;
  readonly sql: string;
  readonly parameters?: readonly unknown[];
  /** @default both */
  readonly dialects?: readonly SqlDialect[];
  /** Each branch's text and parameters. */
  readonly branches?: readonly (readonly [sql: string, parameters: readonly unknown[]])[];
  /** The operators, written `UNION ALL`, `EXCEPT` … */
  readonly operators?: readonly string[];
  /** The compound's ORDER BY terms, written `2 DESC`, `name:k ASC`, `other:k + 1`. */
  readonly orderBy?: readonly string[];
  /** The text of the LIMIT's count and offset values. */
  readonly limit?: readonly [count: string, offset: string | undefined];
  /** Or a fragment of the problem. */
  readonly problem?: string;
}

const CASES: readonly SplitCase[] = [
  { name: 'a plain SELECT is no compound', sql: 'SELECT id FROM orders WHERE id IN (?, ?)', parameters: [1, 2] },
  { name: 'a UNION inside a subquery is no compound', sql: 'SELECT * FROM (SELECT id FROM a UNION SELECT id FROM b) d WHERE x IN (SELECT 1 UNION SELECT 2)' },
  {
    name: 'UNION ALL: each SELECT with its own parameters',
    sql: 'SELECT id FROM orders WHERE id IN (?, ?, ?) UNION ALL SELECT id FROM orders WHERE buyerId = ?',
    parameters: [1, 2, 3, 4],
    branches: [
      ['SELECT id FROM orders WHERE id IN (?, ?, ?)', [1, 2, 3]],
      ['SELECT id FROM orders WHERE buyerId = ?', [4]],
    ],
    operators: ['UNION ALL'],
  },
  {
    name: 'a trailing ORDER BY / LIMIT belongs to the compound, not to the last SELECT',
    sql: 'SELECT a, b AS k FROM t WHERE x = ? UNION SELECT a, b FROM u WHERE y = ? ORDER BY 2 DESC, k, `a` ASC LIMIT ?, 10',
    parameters: ['x', 'y', 5],
    dialects: ['mysql'],
    branches: [
      ['SELECT a, b AS k FROM t WHERE x = ?', ['x']],
      ['SELECT a, b FROM u WHERE y = ?', ['y']],
    ],
    operators: ['UNION'],
    orderBy: ['2 DESC', 'name:k ASC', 'name:a ASC'],
    limit: ['10', '?'],
  },
  {
    name: 'LIMIT count OFFSET offset',
    sql: 'SELECT a FROM t UNION SELECT a FROM u LIMIT 5 OFFSET 20',
    branches: [
      ['SELECT a FROM t', []],
      ['SELECT a FROM u', []],
    ],
    operators: ['UNION'],
    limit: ['5', '20'],
  },
  {
    name: 'SQLite quotes: a "name" in ORDER BY, -1 as no limit',
    sql: 'SELECT "a" FROM "t" UNION SELECT "a" FROM "u" ORDER BY "a" DESC LIMIT -1 OFFSET 3',
    dialects: ['sqlite'],
    branches: [
      ['SELECT "a" FROM "t"', []],
      ['SELECT "a" FROM "u"', []],
    ],
    operators: ['UNION'],
    orderBy: ['name:a DESC'],
    limit: ['-1', '3'],
  },
  {
    name: 'parenthesised SELECTs keep their own ORDER BY / LIMIT; parameters split around them',
    sql: '(SELECT a FROM t WHERE x = ? ORDER BY a LIMIT ?) UNION ALL ((SELECT a FROM u WHERE y IN (?, ?) LIMIT 2)) ORDER BY 1 LIMIT ?',
    parameters: [1, 3, 'p', 'q', 7],
    dialects: ['mysql'],
    branches: [
      ['SELECT a FROM t WHERE x = ? ORDER BY a LIMIT ?', [1, 3]],
      ['SELECT a FROM u WHERE y IN (?, ?) LIMIT 2', ['p', 'q']],
    ],
    operators: ['UNION ALL'],
    orderBy: ['1 ASC'],
    limit: ['?', undefined],
  },
  {
    name: 'every operator, with DISTINCT / ALL, case-insensitive, comments between',
    sql: 'select a from t union distinct /* x */ select a from u Except ALL select a from v intersect select a from w -- end',
    dialects: ['mysql'],
    branches: [
      ['select a from t', []],
      ['select a from u', []],
      ['select a from v', []],
      ['select a from w', []],
    ],
    operators: ['UNION', 'EXCEPT ALL', 'INTERSECT'],
  },
  {
    name: 'keywords inside strings and identifiers do not split',
    sql: "SELECT 'a UNION b' AS `union` FROM t WHERE n = 'x' UNION SELECT `union` FROM t2",
    dialects: ['mysql'],
    branches: [
      ["SELECT 'a UNION b' AS `union` FROM t WHERE n = 'x'", []],
      ['SELECT `union` FROM t2', []],
    ],
    operators: ['UNION'],
  },
  {
    name: 'a trailing semicolon is allowed',
    sql: 'SELECT a FROM t UNION SELECT a FROM u;',
    branches: [
      ['SELECT a FROM t', []],
      ['SELECT a FROM u', []],
    ],
    operators: ['UNION'],
  },
  { name: 'ORDER BY an expression is read as other', sql: 'SELECT a FROM t UNION SELECT a FROM u ORDER BY a + 1 DESC', orderBy: ['other:a + 1 DESC'] },
  { name: 'LIMIT on a SELECT before the last is rejected (the database rejects it)', sql: 'SELECT a FROM t LIMIT 1 UNION SELECT a FROM u', problem: 'in parentheses' },
  { name: 'ORDER BY on a SELECT before the last', sql: 'SELECT a FROM t ORDER BY a UNION SELECT a FROM u', problem: 'in parentheses' },
  { name: 'a locking clause', sql: 'SELECT a FROM t UNION SELECT a FROM u FOR UPDATE', problem: 'FOR clause' },
  { name: 'a nested compound in parentheses', sql: '(SELECT a FROM t UNION SELECT a FROM u) UNION SELECT a FROM v', dialects: ['mysql'], problem: 'nested' },
  { name: 'parentheses on SQLite', sql: '(SELECT a FROM t) UNION SELECT a FROM u', dialects: ['sqlite'], problem: 'SQLite does not accept' },
  { name: 'EXCEPT ALL on SQLite', sql: 'SELECT a FROM t EXCEPT ALL SELECT a FROM u', dialects: ['sqlite'], problem: 'SQLite has no EXCEPT ALL' },
  { name: 'UNION DISTINCT on SQLite', sql: 'SELECT a FROM t UNION DISTINCT SELECT a FROM u', dialects: ['sqlite'], problem: 'SQLite has no UNION DISTINCT' },
  { name: 'VALUES as a branch', sql: 'SELECT a FROM t UNION VALUES (1)', problem: 'must be a SELECT' },
  { name: 'a missing branch', sql: 'SELECT a FROM t UNION', problem: 'without a SELECT' },
  { name: 'several statements', sql: 'SELECT a FROM t UNION SELECT a FROM u; SELECT 1', problem: 'several statements' },
  { name: 'an ORDER BY term that is a string', sql: "SELECT a FROM t UNION SELECT a FROM u ORDER BY 'a'", orderBy: ["other:'a'"] },
  { name: 'text after the LIMIT', sql: 'SELECT a FROM t UNION SELECT a FROM u LIMIT 1 PROCEDURE ANALYSE()', problem: 'unexpected text' },
];

function describeTerm(term: NonNullable<ReturnType<typeof splitCompound>>['orderBy'][number]): string {
  if (term.kind === 'position') return `${term.position} ${term.direction}`;
  if (term.kind === 'name') return `name:${term.name} ${term.direction}`;
  return `other:${term.text}`;
}

describe.each(['mysql', 'sqlite'] as const)('splitCompound (%s)', (dialect) => {
  const cases = CASES.filter((c) => (c.dialects ?? ['mysql', 'sqlite']).includes(dialect));
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const split = splitCompound(c.sql, dialect);
    if (!c.branches && !c.problem && !c.orderBy) {
      expect(split).toBeUndefined();
      return;
    }
    expect(split).toBeDefined();
    if (c.problem) {
      expect(split!.problem).toContain(c.problem);
      return;
    }
    expect(split!.problem).toBeUndefined();
    if (c.branches) expect(split!.branches.map((b) => branchStatement(c.sql, c.parameters ?? [], b))).toEqual(c.branches.map(([sql, parameters]) => ({ sql, parameters })));
    if (c.operators) expect(split!.operators.map((o) => `${o.op}${o.all ? ' ALL' : ''}`)).toEqual(c.operators);
    expect(split!.orderBy.map(describeTerm)).toEqual(c.orderBy ?? []);
    const token = (at: number | undefined) => (at === undefined ? undefined : /^-?\w+|^\?/.exec(c.sql.slice(at))![0]);
    expect(split!.limit ? [token(split!.limit.count), token(split!.limit.offset)] : undefined).toEqual(c.limit);
  });

  it('partitions the parameters: every ? goes to exactly one branch, in order', () => {
    const sql = 'SELECT ? AS a FROM t WHERE x IN (?, ?) UNION ALL SELECT ? FROM u UNION SELECT a FROM v WHERE y = ? AND z = ?';
    const parameters = [1, 2, 3, 4, 5, 6];
    const split = splitCompound(sql, dialect)!;
    expect(split.branches.flatMap((b) => branchStatement(sql, parameters, b).parameters)).toEqual(parameters);
    expect(split.branches.map((b) => b.parameterCount)).toEqual([3, 1, 2]);
  });
});

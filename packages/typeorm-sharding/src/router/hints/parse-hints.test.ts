import { describe, expect, it, vi } from 'vitest';
import { hintNames } from './hint.js';
import { HintReader } from './hint-reader.js';
import { leadingCommentsEnd, parseLeadingHints } from './parse-hints.js';

const names = (sql: string) => hintNames(parseLeadingHints(sql).hints);
const problems = (sql: string) => parseLeadingHints(sql).problems.map((p) => [p.kind, p.hint]);

describe('routing hints in leading comments', () => {
  it.each([
    ['/*+ FORCE_MASTER */ SELECT 1', ['FORCE_MASTER']],
    ['/* FORCE_SLAVE */ SELECT * FROM `orders` `o`', ['FORCE_SLAVE']], // TypeORM's `comment`
    ['/*+ FORCE_SLAVE, ROUTE_STICKY */ SELECT 1', ['FORCE_SLAVE', 'ROUTE_STICKY']],
    ['  /*+ consistent_read */\n SELECT 1', ['CONSISTENT_READ']],
    ['/* CONSISTENT_READ */ /*+ ROUTE_STICKY */ SELECT 1', ['CONSISTENT_READ', 'ROUTE_STICKY']],
    ['-- a note\n/*+ FORCE_MASTER */ SELECT 1', ['FORCE_MASTER']],
    ['/*+ MASTER_ONLY */ BEGIN', ['MASTER_ONLY']],
    ['/*+ MASTER_ONLY */ START TRANSACTION', ['MASTER_ONLY']],
  ])('%s → %j', (sql, expected) => {
    expect(names(sql)).toEqual(expected);
    expect(problems(sql)).toEqual([]);
  });

  it.each([
    ['SELECT /*+ FORCE_MASTER */ 1', 'after the first keyword: MySQL optimizer-hint position'],
    ['/* list the open orders */ SELECT 1', 'an ordinary comment'],
    ['/*!40101 SET NAMES utf8 */', 'an executable comment'],
    ['SELECT 1 -- FORCE_MASTER', 'a trailing comment'],
    ["SELECT '/*+ FORCE_MASTER */'", 'inside a string'],
  ])('reads nothing from %s (%s)', (sql) => {
    expect(names(sql)).toEqual([]);
    expect(problems(sql)).toEqual([]);
  });

  it('reports unknown and malformed hints with the offending word only', () => {
    expect(problems('/*+ FORCE_MASTR */ SELECT 1')).toEqual([['unknown-hint', 'FORCE_MASTR']]);
    expect(problems('/* FORCE_MASTR */ SELECT 1')).toEqual([['unknown-hint', 'FORCE_MASTR']]);
    expect(problems('/*+ FORCE_MASTER(1) */ SELECT 1')).toEqual([['malformed-hint', 'FORCE_MASTER(1)']]);
    expect(parseLeadingHints('/*+ FORCE_MASTER(1) */ SELECT 1').problems[0]!.message).toContain('takes no arguments');
    expect(problems('/*+ FORCE_SLAVE please */ SELECT secret_column FROM t')).toEqual([['unknown-hint', 'please']]);
    expect(problems('/*+ FORCE_SLAVE SELECT 1')).toEqual([['malformed-hint', '/*']]);
    for (const p of parseLeadingHints('/*+ FORCE_SLAVE please */ SELECT secret_column FROM t').problems) expect(p.message).not.toContain('secret_column');
  });

  it('resolves FORCE_MASTER with FORCE_SLAVE to the primary, and MASTER_ONLY off BEGIN to FORCE_MASTER, reporting both', () => {
    expect(names('/*+ FORCE_MASTER FORCE_SLAVE */ SELECT 1')).toEqual(['FORCE_MASTER']);
    expect(problems('/*+ FORCE_MASTER FORCE_SLAVE */ SELECT 1')).toEqual([['conflicting-hints', 'FORCE_MASTER FORCE_SLAVE']]);
    expect(names('/*+ MASTER_ONLY */ SELECT 1')).toEqual(['FORCE_MASTER']);
    expect(problems('/*+ MASTER_ONLY */ SELECT 1')).toEqual([['misplaced-hint', 'MASTER_ONLY']]);
  });

  it('finds where the statement starts', () => {
    expect(leadingCommentsEnd('SELECT 1')).toBe(0);
    expect(leadingCommentsEnd('/* a */ -- b\n SELECT 1')).toBe(14);
  });
});

describe('HintReader', () => {
  it('interns hint sets and reports each problem once per distinct comment', () => {
    const report = vi.fn();
    const reader = new HintReader(report);
    expect(reader.hintsOf('SELECT 1').key).toBe('');
    const a = reader.hintsOf('/*+ FORCE_SLAVE */ SELECT 1');
    expect(reader.hintsOf('/*+ FORCE_SLAVE */ SELECT 2')).toBe(a);
    expect(a.forceSlave).toBe(true);
    for (let i = 0; i < 3; i++) reader.hintsOf(`/*+ FORCE_MASTR */ SELECT ${i}`);
    expect(report).toHaveBeenCalledTimes(1);
    expect(report.mock.calls[0]![0]).toMatchObject({ kind: 'unknown-hint', hint: 'FORCE_MASTR' });
    reader.hintsOf('/*+ NO_SUCH_HINT */ SELECT 1');
    expect(report).toHaveBeenCalledTimes(2);
  });
});

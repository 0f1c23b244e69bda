import { describe, expect, it } from 'vitest';
import { UnsupportedShardingError } from '../../errors/index.js';
import { parameterize } from '../../parameterize/index.js';
import { compileExpression, semanticsOf } from '../../values/evaluate/compile.js';
import type { ScalarExpression } from '../../values/evaluate/expression.js';
import { analyze } from '../analyze.js';
import { fakeRules } from '../testing/fake-rules.js';
import { printSql } from './print-sql.js';
import type { SqlNode } from './sql-node.js';
import { sameExpression } from './sql-tree.js';

// Issue 14: a statement nested 5,000 levels deep is refused with UnsupportedShardingError at
// every stage that would recurse per level (the parser, the converter, the walks after it, the
// printer, the evaluator), never a RangeError. An AND / OR chain of a WHERE is not nesting.

const DEPTH = 5000;
/**
 * Chains the parser reads slowly (seconds at 5,000 links on a busy CI machine): 1,500 links by
 * default, past the 1,000-level bound all the same; `TSH_DEEP_CHAIN=5000` runs them at full depth.
 */
const CHAIN = Number(process.env.TSH_DEEP_CHAIN ?? 1500);
const rules = fakeRules();
const many = (n: number, f: (i: number) => string, sep: string) => Array.from({ length: n }, (_, i) => f(i)).join(sep);

const DEEP: Readonly<Record<string, string>> = {
  'parentheses': `SELECT id FROM orders WHERE id = ${'('.repeat(DEPTH)}1${')'.repeat(DEPTH)}`,
  'a chain of +': `SELECT id FROM orders WHERE id = 1${' + 1'.repeat(CHAIN)}`,
  'a chain of + in the select list': `SELECT id, 1${' + buyerId'.repeat(CHAIN)} AS s FROM orders ORDER BY s`,
  'NOT NOT …': `SELECT id FROM orders WHERE ${'NOT '.repeat(CHAIN)}id = 1`,
  '- - …': `SELECT id FROM orders WHERE id = ${'- '.repeat(CHAIN)}1`,
  'nested function calls': `SELECT id FROM orders WHERE id = ${'ABS('.repeat(DEPTH)}1${')'.repeat(DEPTH)}`,
  'nested CASE': `SELECT id FROM orders WHERE id = ${'CASE WHEN 1 THEN '.repeat(DEPTH)}1${' END'.repeat(DEPTH)}`,
  'an OR chain in HAVING': `SELECT buyerId, COUNT(*) c FROM orders GROUP BY buyerId HAVING ${many(CHAIN, (i) => `COUNT(*) = ${i}`, ' OR ')}`,
  'an OR chain in the select list': `SELECT (${many(CHAIN, (i) => `buyerId = ${i}`, ' OR ')}) AS x FROM orders ORDER BY x`,
  'an UPDATE with a deep SET': `UPDATE orders SET buyerId = 1${' + 1'.repeat(CHAIN)} WHERE id = 1`,
};

describe(`statements nested ${DEPTH} levels deep (chains: ${CHAIN} links)`, () => {
  // One dialect per case, in turn (the parser reads both alike; each parse of such a text takes a while).
  for (const [index, [name, sql]] of Object.entries(DEEP).entries()) {
    const dialect = index % 2 === 0 ? 'mysql' : 'sqlite';
    it(`${name} (${dialect}): UnsupportedShardingError naming the nesting`, () => {
      const run = () => analyze(parameterize(sql, [], dialect), rules, dialect);
      expect(run).toThrow(UnsupportedShardingError);
      expect(run).toThrow(/nested more than 1000 levels/);
    });
  }

  it('an OR of 2,000 key terms in a WHERE is a chain, not nesting: it is planned', () => {
    const sql = `SELECT id FROM orders WHERE ${many(2000, (i) => `(id = ${i} AND buyerId = ${i})`, " OR ")}`;
    const plan = analyze(parameterize(sql, [], 'mysql'), rules, 'mysql');
    expect(plan.kind).toBe('select');
  });
});

const column = (name: string): SqlNode => ({ kind: 'column', column: name }) as never;
const plusChain = (depth: number, last = 'x'): SqlNode => {
  let node = column('a');
  for (let i = 0; i < depth; i++) node = { kind: 'binary', op: '+', left: node, right: column(i === depth - 1 ? last : 'b') } as never;
  return node;
};

describe(`stages given a tree ${DEPTH} levels deep`, () => {
  it('printSql refuses it with UnsupportedShardingError', () => {
    expect(() => printSql(plusChain(DEPTH), 'mysql')).toThrow(UnsupportedShardingError);
    expect(printSql(plusChain(500), 'mysql')?.text).toMatch(/^\(+`a` \+ `b`\)/);
  });

  it('sameExpression compares it without recursing', () => {
    expect(sameExpression(plusChain(DEPTH), plusChain(DEPTH))).toBe(true);
    expect(sameExpression(plusChain(DEPTH), plusChain(DEPTH, 'y'))).toBe(false);
    expect(sameExpression(column('a'), { kind: 'column', column: 'a', table: undefined } as never)).toBe(true);
    expect(sameExpression(column('a'), { kind: 'column', column: 'a', table: 't' } as never)).toBe(false);
  });

  it('the evaluator refuses to compile it with UnsupportedShardingError, and compiles a shallow one', () => {
    const leaf: ScalarExpression = { kind: 'constant', value: 1, numeric: true } as never;
    let deep: ScalarExpression = leaf;
    for (let i = 0; i < DEPTH; i++) deep = { kind: 'operator', op: '+', args: [deep, leaf] } as never;
    expect(() => compileExpression(deep, semanticsOf('mysql'))).toThrow(UnsupportedShardingError);
    let shallow: ScalarExpression = leaf;
    for (let i = 0; i < 100; i++) shallow = { kind: 'operator', op: '+', args: [shallow, leaf] } as never;
    expect(() => compileExpression(shallow, semanticsOf('mysql'))).not.toThrow();
  });
});

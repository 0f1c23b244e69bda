import { describe, expect, it } from 'vitest';
import { UnsupportedShardingError } from '../../errors/index.js';
import type { SqlNode } from './sql-node.js';
import { chainOf, conjunctsOf, forEachNode, someNode } from './sql-tree.js';
import { keyConditionOf } from '../routing/key-condition.js';
import { MAX_EXPRESSION_DEPTH, subquerySitesOf } from '../subquery/subquery-sites.js';

// Issue 14: `findBy([{ a, b }, …])` with thousands of composite keys is an OR chain one tree level
// per row; every walk of the planner must follow it without recursing per level, and a tree
// nested deeper than a walk follows is refused with a typed error, never a RangeError.

const column = (name: string): SqlNode => ({ kind: 'column', column: name }) as never;
const slot = (n: number): SqlNode => ({ kind: 'slot', slot: n }) as never;
const binary = (op: string, left: SqlNode, right: SqlNode): SqlNode => ({ kind: 'binary', op, left, right }) as never;

/** `(id = ? AND part = ?) OR …` for `rows` rows, left-deep as the parser builds it. */
function orOfRows(rows: number): SqlNode {
  const row = (i: number) => binary('AND', binary('=', column('id'), slot(2 * i)), binary('=', column('part'), slot(2 * i + 1)));
  let where = row(0);
  for (let i = 1; i < rows; i++) where = binary('OR', where, row(i));
  return where;
}

const select = (where: SqlNode): SqlNode =>
  ({ kind: 'select', distinct: false, items: [{ expr: column('id'), alias: undefined }], from: [], where, groupBy: [], rollup: false, having: undefined, orderBy: [], limit: undefined, locking: undefined, hasWith: false, compound: undefined }) as never;

describe('walks over deep trees', () => {
  const where = orOfRows(30_000);

  it('sql-tree walks follow an OR of 30,000 rows, in text order', () => {
    expect(chainOf(where, 'OR')).toHaveLength(30_000);
    let columns = 0;
    forEachNode(where, (n) => void (n.kind === 'column' && columns++));
    expect(columns).toBe(60_000);
    const slots: number[] = [];
    forEachNode(where, (n) => void (n.kind === 'slot' && slots.push((n as { slot: number }).slot)));
    expect(slots.slice(0, 4)).toEqual([0, 1, 2, 3]);
    expect(someNode(where, (n) => n.kind === 'slot' && (n as { slot: number }).slot === 59_999)).toBe(true);
    expect(conjunctsOf(binary('AND', where, column('x')))).toHaveLength(2);
  });

  it('the key condition of such an OR is one n-ary OR of ANDs', () => {
    const condition = keyConditionOf(where, (n) => n.kind === 'column' && (n as { column: string }).column === 'id', []);
    expect(condition.kind).toBe('or');
    expect(condition.kind === 'or' ? condition.terms : []).toHaveLength(30_000);
  });

  it('subquery sites: a long chain is followed; nesting past the bound is refused with UnsupportedShardingError', () => {
    expect(subquerySitesOf(select(where) as never)).toEqual([]);
    let nested = column('a');
    for (let i = 0; i < MAX_EXPRESSION_DEPTH + 10; i++) nested = binary('+', nested, slot(i));
    expect(() => subquerySitesOf(select(binary('=', nested, slot(0))) as never)).toThrow(UnsupportedShardingError);
  });
});

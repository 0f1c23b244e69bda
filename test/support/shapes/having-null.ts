import type { Cond, Expr, Select, ShapeCase } from './ast.js';
import { tagsOf } from './features.js';
import { printQuery, type PrintedQuery } from './print.js';
import type { TableDef } from './schema.js';
import { outputsOf } from './typing.js';

// Fixed oracle cases for HAVING comparisons with NULL under NOT (issue 8's test gaps). In
// SQL a comparison with NULL is unknown, NOT unknown is still unknown, and HAVING keeps only
// groups whose condition is true. Group 5 of the shape data has only NULL quantities, so its
// MAX(qty) is NULL; a merge that evaluates HAVING itself with two-valued logic keeps it.

export interface HavingNullCase {
  readonly title: string;
  /** What the plain answer must look like for the case to discriminate (which groups `g` it keeps). */
  readonly expectGroups: 'none' | 'some, not group 5';
  build(tables: { facts: TableDef }): { c: ShapeCase; q: PrintedQuery };
}

function grouped(tables: { facts: TableDef }, aggregate: Expr, having: (agg: Expr) => Cond, params: 'mysql' | 'sqlite'): { c: ShapeCase; q: PrintedQuery } {
  const col = (name: string): Expr => ({ kind: 'column', table: 'f', column: tables.facts.columns.find((c) => c.name === name)! });
  const select: Select = {
    kind: 'select',
    distinct: false,
    items: [
      { expr: col('grp'), alias: 'g' },
      { expr: aggregate, alias: 'm' },
    ],
    from: { kind: 'table', table: tables.facts, alias: 'f' },
    joins: [],
    where: undefined,
    groupBy: [{ kind: 'expr', expr: col('grp') }],
    having: having(aggregate),
    orderBy: [{ term: { kind: 'expr', expr: col('grp') }, direction: undefined }],
    limit: undefined,
  };
  const c: ShapeCase = { shapeClass: 'having-null', query: select, outputs: outputsOf(select, params), ordered: true, tags: tagsOf(select, params) };
  return { c, q: printQuery(select, params) };
}

const maxQty = (tables: { facts: TableDef }): Expr => ({ kind: 'aggregate', fn: 'MAX', arg: { kind: 'column', table: 'f', column: tables.facts.columns.find((c) => c.name === 'qty')! }, distinct: false });
const countStar: Expr = { kind: 'aggregate', fn: 'COUNT', arg: undefined, distinct: false };

/** The fixed cases, for `dialect`. */
export function havingNullCases(dialect: 'mysql' | 'sqlite' = 'sqlite'): HavingNullCase[] {
  // Groups whose MAX(qty) is 20 (the largest quantity) are kept by NOT (MAX(qty) < 20); group 5 must not be.
  return [
    {
      title: 'NOT (MAX(qty) < ?) keeps the groups where it is false, drops the group whose MAX(qty) is NULL',
      expectGroups: 'some, not group 5',
      build: (tables) => grouped(tables, maxQty(tables), (agg) => ({ kind: 'not', arg: { kind: 'compare', op: '<', left: agg, right: { kind: 'param', value: 20 } } }), dialect),
    },
    {
      title: 'NOT (COUNT(*) > NULL parameter) drops every group',
      expectGroups: 'none',
      build: (tables) => grouped(tables, countStar, (agg) => ({ kind: 'not', arg: { kind: 'compare', op: '>', left: agg, right: { kind: 'param', value: null } } }), dialect),
    },
    {
      title: 'NOT (MAX(qty) < 20 AND COUNT(*) > 0): unknown AND true is unknown, and NOT unknown too',
      expectGroups: 'some, not group 5',
      build: (tables) =>
        grouped(
          tables,
          maxQty(tables),
          (agg) => ({
            kind: 'not',
            arg: { kind: 'logic', op: 'AND', items: [{ kind: 'compare', op: '<', left: agg, right: { kind: 'literal', value: 20 } }, { kind: 'compare', op: '>', left: countStar, right: { kind: 'literal', value: 0 } }] },
          }),
          dialect,
        ),
    },
  ];
}

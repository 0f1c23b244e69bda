import type { Expr, Session } from './ast.js';
import { and, col, finish, items, selectOf, tableFrom } from './grammar-common.js';
import type { Gen } from './context.js';
import { buildSelect, type Built } from './selects.js';

// Session state (issue 14 item 6; MariaDB): user variables set by SET and read in a query,
// assigned per row and from an aggregate and read back by the next statement, and
// SQL_CALC_FOUND_ROWS … LIMIT followed by FOUND_ROWS(). Each source runs the statements on
// one connection (ShapeCase.session); every case first clears the variables it uses.

const RESET = 'SET @v = NULL, @m = NULL, @r = NULL';
const INT = { type: 'int', exact: true, anyCase: false } as const;

export function buildSession(g: Gen): Built & { session: Session } {
  const form = g.c.weighted<string>([
    [2, 'set'],
    [1.5, 'aggregate'],
    [1, 'perRow'],
    [2.5, 'foundRows'],
  ]);
  switch (form) {
    case 'aggregate':
      return assignedAggregate(g);
    case 'perRow':
      return perRow(g);
    case 'foundRows':
      return foundRows(g);
  }
  return setThenRead(g);
}

/** `SET @v = n`, then a generated select over the facts filtered by `f.qty >= @v` (or `f.grp = @v`). */
function setThenRead(g: Gen): Built & { session: Session } {
  const value = g.c.pick([1, 2, 3, 0]);
  const built = buildSelect(g, 'top');
  const q = built.query;
  const session = { before: [RESET, `SET @v = ${value}`], after: [] };
  if (q.kind !== 'select' || q.from.kind !== 'table' || q.from.table !== g.tables.facts) return { ...built, session };
  const v: Expr = { kind: 'userVar', name: 'v', assign: undefined };
  const cond = { kind: 'compare', op: g.c.pick(['>=', '='] as const), left: col(g.tables.facts, q.from.alias, g.c.pick(['qty', 'grp'])), right: v } as const;
  return { ...built, query: { ...q, where: and(cond, q.where) }, session };
}

/** `SELECT @m := MAX(f.qty) AS m …`, then `SELECT @m AS m`. */
function assignedAggregate(g: Gen): Built & { session: Session } {
  const { facts } = g.tables;
  const fn = g.c.pick(['MAX', 'MIN', 'COUNT', 'SUM'] as const);
  const agg: Expr = { kind: 'aggregate', fn, arg: fn === 'COUNT' && g.c.chance(0.5) ? undefined : col(facts, 'f', 'qty'), distinct: false };
  const select = selectOf({ items: items([{ kind: 'userVar', name: 'm', assign: agg }, 'm']), from: tableFrom(facts, 'f'), where: g.c.chance(0.4) ? { kind: 'compare', op: '=', left: col(facts, 'f', 'grp'), right: { kind: 'literal', value: g.c.between(0, 5) } } : undefined });
  return { ...finish(g, select, []), session: { before: [RESET], after: [{ sql: 'SELECT @m AS m', outputs: [INT] }] } };
}

/** `SELECT f.id, (@r := f.qty + 1) AS v FROM shape_facts f … ORDER BY f.id`: a value per row (the last one is not read: it depends on the plan). */
function perRow(g: Gen): Built & { session: Session } {
  const { facts } = g.tables;
  const id = col(facts, 'f', 'id');
  const select = selectOf({
    items: items([id, undefined], [{ kind: 'userVar', name: 'r', assign: { kind: 'arith', op: '+', left: col(facts, 'f', 'qty'), right: { kind: 'literal', value: 1 } } }, 'v']),
    from: tableFrom(facts, 'f'),
    where: { kind: 'inList', arg: id, items: Array.from({ length: g.c.between(1, 6) }, () => ({ kind: 'literal', value: g.c.pick(g.data.factIds) })), negated: false },
  });
  return { ...finish(g, select, [id]), session: { before: [RESET], after: [] } };
}

/** `SELECT SQL_CALC_FOUND_ROWS … [LIMIT]`, then `SELECT FOUND_ROWS() AS n`. */
function foundRows(g: Gen): Built & { session: Session } {
  const built = buildSelect(g, 'top');
  const q = built.query;
  const session = { before: [RESET], after: [{ sql: 'SELECT FOUND_ROWS() AS n', outputs: [INT] }] };
  if (q.kind !== 'select') return { ...built, session: { before: [RESET], after: [] } };
  return { ...built, query: { ...q, calcFoundRows: true }, session };
}

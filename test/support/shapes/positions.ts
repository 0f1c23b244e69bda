import type { Cond, Expr, Select } from './ast.js';
import { simpleRowCondition } from './conditions.js';
import { tableScope, type Gen } from './context.js';
import { and, col, finish, items, selectOf, tableFrom } from './grammar-common.js';
import { rowExpr } from './expressions.js';
import type { Built } from './selects.js';
import { scalarItem, subqueryCondition } from './subqueries.js';

// Subqueries at every position (issue 14 item 6): scalar, EXISTS, NOT EXISTS, IN and NOT IN in
// the select list, WHERE, HAVING and ORDER BY, correlated on the shard key (shard-local), on
// another column or a group key (every shard's rows), and uncorrelated (the issue's
// `COUNT(*) … WHERE EXISTS (SELECT 1 FROM posts WHERE score > 99)`).

export function buildPositions(g: Gen): Built {
  const position = g.c.weighted<string>([
    [2, 'select'],
    [1.5, 'where'],
    [2, 'having'],
    [1.5, 'orderBy'],
  ]);
  switch (position) {
    case 'where':
      return inWhere(g);
    case 'having':
      return inHaving(g);
    case 'orderBy':
      return inOrderBy(g);
  }
  return inSelectList(g);
}

const count: Expr = { kind: 'aggregate', fn: 'COUNT', arg: undefined, distinct: false };

function factsScope(g: Gen) {
  return tableScope(g.tables.facts, 'f', true);
}

/** `SELECT f.id, (EXISTS (…)) AS v1, (SELECT …) AS v2 …`: truth values and scalars of subqueries. */
function inSelectList(g: Gen): Built {
  const { facts } = g.tables;
  const scope = factsScope(g);
  const id = col(facts, 'f', 'id');
  const exprs: [Expr, string | undefined][] = [[id, undefined]];
  const n = g.c.between(1, 2);
  for (let i = 0; i < n; i++) {
    const e: Expr = g.c.chance(0.45) ? scalarItem(g, scope) : { kind: 'truth', cond: subqueryCondition(g, scope) };
    exprs.push([e, `v${i + 1}`]);
  }
  const select = selectOf({ items: items(...exprs), from: tableFrom(facts, 'f'), where: g.c.chance(0.4) ? simpleRowCondition(g, scope, true) : undefined });
  return finish(g, select, [id]);
}

/** A subquery condition in WHERE, of a row select or of a global aggregate. */
function inWhere(g: Gen): Built {
  const { facts } = g.tables;
  const scope = factsScope(g);
  const id = col(facts, 'f', 'id');
  const sub = subqueryCondition(g, scope);
  const where: Cond = g.c.chance(0.3) ? { kind: 'logic', op: g.c.pick(['AND', 'OR'] as const), items: [sub, simpleRowCondition(g, scope, true)] } : sub;
  if (g.c.chance(0.4)) {
    const select = selectOf({ items: items([count, 'n'], [{ kind: 'aggregate', fn: 'SUM', arg: col(facts, 'f', 'qty'), distinct: false }, 's']), from: tableFrom(facts, 'f'), where });
    return finish(g, select, []);
  }
  const select = selectOf({ items: items([id, undefined], [rowExpr(g, scope, 'any', 1, { params: true, exact: false }), 'v1']), from: tableFrom(facts, 'f'), where });
  return finish(g, select, [id]);
}

/** A subquery in HAVING: uncorrelated (broadcast or sharded), or correlated with the group key. */
function inHaving(g: Gen): Built {
  const { facts, lines, refs } = g.tables;
  const byKey = g.c.chance(0.3);
  const key = col(facts, 'f', byKey ? 'id' : 'grp');
  const sumQty: Expr = { kind: 'aggregate', fn: 'SUM', arg: col(facts, 'f', 'qty'), distinct: false };
  const maxQty: Expr = { kind: 'aggregate', fn: 'MAX', arg: col(facts, 'f', 'qty'), distinct: false };
  const l = (n: string) => col(lines, 'l2', n);
  const r = (n: string) => col(refs, 'r2', n);
  const linesFrom = tableFrom(lines, 'l2');
  const refsFrom = tableFrom(refs, 'r2');
  const form = g.c.weighted<string>([
    [1, 'countVsBroadcast'],
    [1, 'maxVsSharded'],
    [1, 'keyInBroadcast'],
    [1.2, 'keyInSharded'],
    [1.5, 'existsCorrelated'],
    [1, 'countCorrelated'],
  ]);
  const negated = g.c.chance(0.3);
  let having: Cond;
  switch (form) {
    case 'countVsBroadcast':
      having = { kind: 'compare', op: g.c.pick(['>', '<='] as const), left: count, right: { kind: 'scalar', query: selectOf({ items: items([count, undefined]), from: refsFrom, where: g.c.chance(0.5) ? { kind: 'isNull', arg: r('weight'), negated: true } : undefined }) } };
      break;
    case 'maxVsSharded':
      having = { kind: 'compare', op: g.c.pick(['>=', '<'] as const), left: maxQty, right: { kind: 'scalar', query: selectOf({ items: items([{ kind: 'aggregate', fn: g.c.pick(['MAX', 'MIN', 'COUNT'] as const), arg: l('qty'), distinct: false }, undefined]), from: linesFrom }) } };
      break;
    case 'keyInBroadcast':
      having = { kind: 'inSelect', arg: byKey ? col(facts, 'f', 'id') : key, query: selectOf({ items: items([r('id'), undefined]), from: refsFrom, where: g.c.chance(0.5) ? { kind: 'compare', op: '>', left: r('weight'), right: { kind: 'literal', value: 0 } } : undefined }), negated };
      break;
    case 'keyInSharded':
      having = { kind: 'inSelect', arg: key, query: selectOf({ items: items([byKey ? l('factId') : l('qty'), undefined]), from: linesFrom, where: g.c.chance(0.5) ? { kind: 'like', arg: l('sku'), pattern: { kind: 'literal', value: 's%' }, negated: false } : undefined }), negated };
      break;
    case 'existsCorrelated':
      having = { kind: 'exists', query: selectOf({ items: items([{ kind: 'literal', value: 1 }, undefined]), from: linesFrom, where: and({ kind: 'compare', op: '=', left: byKey ? l('factId') : l('qty'), right: key }, g.c.chance(0.4) ? { kind: 'compare', op: '>', left: l('qty'), right: { kind: 'literal', value: 1 } } : undefined) }), negated };
      break;
    default:
      having = { kind: 'compare', op: g.c.pick(['>', '<='] as const), left: count, right: { kind: 'scalar', query: selectOf({ items: items([count, undefined]), from: linesFrom, where: { kind: 'compare', op: '=', left: byKey ? l('factId') : l('qty'), right: key } }) } };
  }
  const select: Select = selectOf({ items: items([key, undefined], [count, 'n'], [sumQty, 's']), from: tableFrom(facts, 'f'), groupBy: [{ kind: 'expr', expr: key }], having });
  return finish(g, select, [key]);
}

/** `ORDER BY (SELECT …) [DESC], f.id` or `ORDER BY (EXISTS (…)), f.id`. */
function inOrderBy(g: Gen): Built {
  const { facts } = g.tables;
  const scope = factsScope(g);
  const id = col(facts, 'f', 'id');
  const key: Expr = g.c.chance(0.6) ? scalarItem(g, scope) : { kind: 'truth', cond: subqueryCondition(g, scope) };
  const select = selectOf({
    items: items([id, undefined], [col(facts, 'f', 'qty'), undefined]),
    from: tableFrom(facts, 'f'),
    where: g.c.chance(0.4) ? simpleRowCondition(g, scope, true) : undefined,
    orderBy: [
      { term: { kind: 'expr', expr: key }, direction: g.c.pick([undefined, 'DESC'] as const) },
      { term: { kind: 'expr', expr: id }, direction: g.c.pick([undefined, 'DESC'] as const) },
    ],
  });
  return finish(g, select, [id], { fixedOrder: true });
}

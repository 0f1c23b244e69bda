import type { Cond, Expr, Select } from './ast.js';
import { simpleRowCondition } from './conditions.js';
import { tableScope, type Gen } from './context.js';
import { and, col, finish, items, selectOf, tableFrom } from './grammar-common.js';
import type { Built } from './selects.js';

// JSON functions (issue 14 item 6), per backend: JSON_EXTRACT, JSON_VALUE and
// JSON_UNQUOTE(JSON_EXTRACT(…)) on MariaDB (which has no `->>`), json_extract and `->>` on
// SQLite 3.38+; in the select list, in WHERE, as a GROUP BY key and inside aggregates. The
// documents are objects, arrays, strings and numbers (`{"a":1}`, `[1,2]`, `"str"`, `3`).

const PATHS = ['$.a', '$[0]', '$', '$.b[0]', '$[1]'];

function jsonOf(g: Gen, path?: string): Expr {
  const arg = col(g.tables.facts, 'f', 'doc');
  const form = g.dialect === 'mysql' ? g.c.pick(['extract', 'value', 'unquote'] as const) : g.c.pick(['extract', 'arrow'] as const);
  return { kind: 'json', form, arg, path: path ?? g.c.pick(PATHS) };
}

function jsonCondition(g: Gen): Cond {
  const e = jsonOf(g, g.c.pick(['$.a', '$[0]', '$[1]']));
  return g.c.chance(0.5) ? { kind: 'isNull', arg: e, negated: g.c.chance(0.5) } : { kind: 'compare', op: g.c.pick(['=', '>=', '<'] as const), left: e, right: { kind: 'literal', value: g.c.pick([1, 2]) } };
}

export function buildJson(g: Gen): Built {
  const { facts } = g.tables;
  const scope = tableScope(facts, 'f', true);
  const id = col(facts, 'f', 'id');
  const where = and(g.c.chance(0.4) ? jsonCondition(g) : undefined, g.c.chance(0.3) ? simpleRowCondition(g, scope, true) : undefined);
  const form = g.c.weighted<string>([
    [3, 'rows'],
    [1.5, 'group'],
    [1.5, 'aggregate'],
  ]);
  if (form === 'group') {
    const key = jsonOf(g);
    const select: Select = selectOf({ items: items([key, 'j'], [{ kind: 'aggregate', fn: 'COUNT', arg: undefined, distinct: false }, 'n']), from: tableFrom(facts, 'f'), where, groupBy: [{ kind: 'alias', name: 'j' }] });
    // A JSON key is no ORDER BY key the harness can judge (its values mix numbers, text and JSON text): compared as a multiset.
    return finish(g, select, [key], { fixedOrder: true });
  }
  if (form === 'aggregate') {
    const path = g.c.pick(['$.a', '$[0]', '$[1]']);
    const fn = g.c.pick(['SUM', 'MAX', 'MIN', 'COUNT'] as const);
    const select = selectOf({ items: items([{ kind: 'aggregate', fn, arg: jsonOf(g, path), distinct: false }, 'a'], [{ kind: 'aggregate', fn: 'COUNT', arg: undefined, distinct: false }, 'n']), from: tableFrom(facts, 'f'), where });
    return finish(g, select, []);
  }
  const n = g.c.between(1, 2);
  const exprs: [Expr, string][] = Array.from({ length: n }, (_, i) => [jsonOf(g), `j${i + 1}`]);
  const select = selectOf({ items: items([id, undefined], ...exprs), from: tableFrom(facts, 'f'), where });
  return finish(g, select, [id]);
}

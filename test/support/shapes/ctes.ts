import type { Cond, Cte, Expr, Select, Union } from './ast.js';
import { columnExpr, type Gen } from './context.js';
import { and, col, finish, items, selectOf, tableFrom, virtualColumn } from './grammar-common.js';
import { buildSelect, type Built } from './selects.js';
import { outputsOf } from './typing.js';

// Common table expressions (issue 14 item 6): a CTE referenced once (what a derived table
// does, written as WITH), referenced twice (FROM and a subquery), used only in a subquery, and
// WITH RECURSIVE over constants and over a sharded table (a chain of keys 3 apart, which
// crosses shards at every step).

const INT = { type: 'int', exact: true, anyCase: false } as const;
const BIGINT = { type: 'bigint', exact: true, anyCase: false } as const;

export function buildCtes(g: Gen): Built {
  const form = g.c.weighted<string>([
    [3, 'once'],
    [2, 'twice'],
    [1, 'subquery'],
    [1.5, 'recursiveConstant'],
    [2, 'recursiveSharded'],
  ]);
  switch (form) {
    case 'twice':
      return referenced(g, true);
    case 'subquery':
      return onlyInSubquery(g);
    case 'recursiveConstant':
      return recursiveConstant(g);
    case 'recursiveSharded':
      return recursiveSharded(g);
  }
  return referenced(g, false);
}

/** A derived-table query (the class has `derived: 1`) with its derived table moved into WITH; `twice`: named again in WHERE. */
function referenced(g: Gen, twice: boolean): Built {
  const built = buildSelect(g, 'top');
  const q = built.query;
  if (q.kind !== 'select' || q.from.kind !== 'derived') return built;
  const body = q.from.query;
  const cte: Cte = { name: 'c1', columns: undefined, body };
  let where = q.where;
  if (twice) {
    const inner = body.items as readonly { expr: Expr; alias: string | undefined }[];
    const outputs = outputsOf(body, g.dialect);
    const at = outputs.findIndex((o, i) => o.exact && (o.type === 'int' || o.type === 'bigint') && inner[i]!.alias !== undefined);
    if (at >= 0) {
      const name = inner[at]!.alias!;
      const outer = columnExpr(virtualColumn('d', name, outputs[at]!));
      const again = columnExpr(virtualColumn('e', name, outputs[at]!));
      const second: Cond = g.c.chance(0.6)
        ? { kind: 'inSelect', arg: outer, query: selectOf({ items: items([again, undefined]), from: { kind: 'cte', name: 'c1', alias: 'e' } }), negated: g.c.chance(0.2) }
        : { kind: 'compare', op: '<=', left: { kind: 'literal', value: 1 }, right: { kind: 'scalar', query: selectOf({ items: items([{ kind: 'aggregate', fn: 'COUNT', arg: undefined, distinct: false }, undefined]), from: { kind: 'cte', name: 'c1', alias: 'e' } }) } };
      where = and(where, second);
    }
  }
  return { ...built, query: { ...q, from: { kind: 'cte', name: 'c1', alias: 'd' }, where, with: { recursive: false, ctes: [cte] } } };
}

/** `WITH c1 AS (SELECT f.id … WHERE …) SELECT l.… FROM shape_lines l WHERE l.factId [NOT] IN (SELECT c1.id FROM c1)`. */
function onlyInSubquery(g: Gen): Built {
  const { facts, lines } = g.tables;
  const f = (n: string) => col(facts, 'f', n);
  const body = selectOf({
    items: items([f('id'), 'id']),
    from: tableFrom(facts, 'f'),
    where: g.c.pick<Cond>([
      { kind: 'compare', op: '>', left: f('qty'), right: { kind: 'literal', value: 2 } },
      { kind: 'compare', op: '=', left: f('grp'), right: { kind: 'literal', value: g.c.between(0, 5) } },
      { kind: 'isNull', arg: f('price'), negated: false },
    ]),
  });
  const idCol = columnExpr(virtualColumn('c1', 'id', BIGINT));
  const l = (n: string) => col(lines, 'l', n);
  const aggregate = g.c.chance(0.35);
  const select = selectOf({
    items: aggregate ? items([{ kind: 'aggregate', fn: 'COUNT', arg: undefined, distinct: false }, 'n'], [{ kind: 'aggregate', fn: 'SUM', arg: l('qty'), distinct: false }, 's']) : items([l('id'), undefined], [l('factId'), undefined], [l('qty'), undefined]),
    from: tableFrom(lines, 'l'),
    where: { kind: 'inSelect', arg: l('factId'), query: selectOf({ items: items([idCol, undefined]), from: { kind: 'cte', name: 'c1', alias: 'c1' } }), negated: g.c.chance(0.25) },
    with: { recursive: false, ctes: [{ name: 'c1', columns: undefined, body }] },
  });
  return finish(g, select, aggregate ? [] : [l('id')]);
}

/** `WITH RECURSIVE n(k) AS (SELECT start UNION ALL SELECT n.k + step FROM n WHERE n.k < stop)` and a query over it. */
function recursiveConstant(g: Gen): Built {
  const { facts } = g.tables;
  const start = g.c.pick([0, 1, -1]);
  const step = g.c.pick([1, 2]);
  const stop = g.c.pick([3, 5, 8]);
  const k = columnExpr(virtualColumn('n', 'k', INT));
  const body: Union = {
    kind: 'union',
    all: g.c.chance(0.8),
    selects: [
      selectOf({ items: items([{ kind: 'literal', value: start }, undefined]), from: { kind: 'none' } }),
      selectOf({ items: items([{ kind: 'arith', op: '+', left: k, right: { kind: 'literal', value: step } }, undefined]), from: { kind: 'cte', name: 'n', alias: 'n' }, where: { kind: 'compare', op: '<', left: k, right: { kind: 'literal', value: stop } } }),
    ],
    orderBy: [],
    limit: undefined,
  };
  const withClause = { recursive: true, ctes: [{ name: 'n', columns: ['k'], body }] };
  const f = (n: string) => col(facts, 'f', n);
  const form = g.c.weighted<string>([
    [1, 'list'],
    [2, 'join'],
    [2, 'in'],
  ]);
  if (form === 'list') return finish(g, selectOf({ items: items([k, undefined]), from: { kind: 'cte', name: 'n', alias: 'n' }, with: withClause }), [k]);
  if (form === 'join') {
    const select = selectOf({
      items: items([f('grp'), undefined], [{ kind: 'aggregate', fn: 'COUNT', arg: undefined, distinct: false }, 'c'], [{ kind: 'aggregate', fn: 'SUM', arg: f('qty'), distinct: false }, 's']),
      from: tableFrom(facts, 'f'),
      joins: [{ type: 'INNER', item: { kind: 'cte', name: 'n', alias: 'n' }, on: { kind: 'compare', op: '=', left: f('grp'), right: k } }],
      groupBy: [{ kind: 'expr', expr: f('grp') }],
      with: withClause,
    });
    return finish(g, select, [f('grp')]);
  }
  const keyed = g.c.chance(0.5);
  const probe: Expr = keyed ? { kind: 'arith', op: '*', left: k, right: { kind: 'literal', value: 3 } } : k;
  const select = selectOf({
    items: items([f('id'), undefined], [f('qty'), undefined]),
    from: tableFrom(facts, 'f'),
    where: { kind: 'inSelect', arg: keyed ? f('id') : f('qty'), query: selectOf({ items: items([probe, undefined]), from: { kind: 'cte', name: 'n', alias: 'n' } }), negated: false },
    with: withClause,
  });
  return finish(g, select, [f('id')]);
}

/**
 * `WITH RECURSIVE r(id, d) AS (SELECT f.id, 0 FROM shape_facts f WHERE f.id IN (…) UNION ALL
 * SELECT f.id, r.d + 1 FROM r JOIN shape_facts f ON f.id = r.id + 3 WHERE r.d < n)`: each step
 * reads the next key, on another shard.
 */
function recursiveSharded(g: Gen): Built {
  const { facts, lines } = g.tables;
  const onLines = g.c.chance(0.3);
  const table = onLines ? lines : facts;
  const t = (n: string) => col(table, 't', n);
  const starts = onLines ? [1000, 1004, 1010, 1020] : g.data.factIds.slice(0, 20);
  const n = g.c.between(1, 3);
  const anchor: Expr[] = Array.from({ length: n }, () => ({ kind: 'literal', value: g.c.pick(starts) }));
  const distinctAnchors = anchor.filter((a, i) => anchor.findIndex((b) => JSON.stringify(b) === JSON.stringify(a)) === i);
  const rid = columnExpr(virtualColumn('r', 'id', BIGINT));
  const rd = columnExpr(virtualColumn('r', 'd', INT));
  const depth = g.c.pick([2, 3, 5]);
  const step = onLines ? 1 : 3;
  const body: Union = {
    kind: 'union',
    all: true,
    selects: [
      selectOf({ items: items([t('id'), undefined], [{ kind: 'literal', value: 0 }, undefined]), from: tableFrom(table, 't'), where: { kind: 'inList', arg: t('id'), items: distinctAnchors, negated: false } }),
      selectOf({
        items: items([t('id'), undefined], [{ kind: 'arith', op: '+', left: rd, right: { kind: 'literal', value: 1 } }, undefined]),
        from: { kind: 'cte', name: 'r', alias: 'r' },
        joins: [{ type: 'INNER', item: tableFrom(table, 't'), on: { kind: 'compare', op: '=', left: t('id'), right: { kind: 'arith', op: '+', left: rid, right: { kind: 'literal', value: step } } } }],
        where: { kind: 'compare', op: '<', left: rd, right: { kind: 'literal', value: depth } },
      }),
    ],
    orderBy: [],
    limit: undefined,
  };
  const withClause = { recursive: true, ctes: [{ name: 'r', columns: ['id', 'd'], body }] };
  const form = g.c.weighted<string>([
    [2, 'list'],
    [1, 'aggregate'],
    [1.5, 'back'],
  ]);
  if (form === 'aggregate') {
    const select = selectOf({ items: items([{ kind: 'aggregate', fn: 'COUNT', arg: undefined, distinct: false }, 'n'], [{ kind: 'aggregate', fn: 'MAX', arg: rd, distinct: false }, 'm']), from: { kind: 'cte', name: 'r', alias: 'r' }, with: withClause });
    return finish(g, select, []);
  }
  if (form === 'back') {
    const f = (c: string) => col(facts, 'f', c);
    const select = selectOf({
      items: items([f('id'), undefined], [f('grp'), undefined]),
      from: tableFrom(facts, 'f'),
      where: { kind: 'inSelect', arg: f('id'), query: selectOf({ items: items([onLines ? rd : rid, undefined]), from: { kind: 'cte', name: 'r', alias: 'r' } }), negated: g.c.chance(0.2) },
      with: withClause,
    });
    return finish(g, select, [f('id')]);
  }
  const select: Select = selectOf({ items: items([rid, undefined], [rd, undefined]), from: { kind: 'cte', name: 'r', alias: 'r' }, with: withClause });
  // (id, d) is unique: the anchor keys are distinct and each step adds the same amount.
  return finish(g, select, [rid, rd]);
}

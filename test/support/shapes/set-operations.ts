import type { Compound, CompoundTerm, Select, SelectItem, SetOp, Typed } from './ast.js';
import { columnExpr, type Gen } from './context.js';
import type { Want } from './expressions.js';
import { items, selectOf, virtualColumn } from './grammar-common.js';
import { limitClause, orderClause } from './order-by.js';
import type { Built } from './selects.js';
import { outputsOf } from './typing.js';
import { unionBranch } from './union.js';

// Set operations nested (issue 14 item 6): chains of UNION [ALL], INTERSECT and EXCEPT
// (MariaDB binds INTERSECT tighter, SQLite reads a chain left to right: the plugin must model
// each), nested in parentheses on MariaDB and in FROM subqueries on SQLite (which has no
// parenthesized operands), and branches with their own ORDER BY + LIMIT (MariaDB).

const OPS: readonly (readonly [number, SetOp])[] = [
  [3, 'UNION ALL'],
  [2, 'UNION'],
  [1.5, 'INTERSECT'],
  [1.5, 'EXCEPT'],
];

interface Chain {
  readonly compound: Compound;
  readonly leaves: Select[];
  readonly names: string[];
}

export function buildSetOps(g: Gen): Built {
  const kinds: Want[] = Array.from({ length: g.c.between(1, 2) }, () => g.c.pick(['num', 'text'] as const));
  const chain = chainOf(g, kinds, 0);
  const per = chain.leaves.map((s) => outputsOf(s, g.dialect, true));
  const outputs: Typed[] = kinds.map((_, i) => ({ type: per[0]![i]!.type, exact: per.every((o) => o[i]!.exact), anyCase: per.some((o) => o[i]!.anyCase) }));
  let compound = chain.compound;
  // Duplicates are decided by exact values only: with an inexact column every operator keeps duplicates.
  if (outputs.some((o) => !o.exact)) compound = allOps(compound);
  const first = chain.leaves[0]!.items as readonly SelectItem[];
  const positions = first.map((_, i) => `#${i + 1}`);
  const order = orderClause(g, { items: first, itemTexts: positions, outputs, onlyItems: true, exprTerms: false, unique: undefined, extra: () => ({ kind: 'literal', value: 1 }) });
  const limit = order.ordered && g.c.chance(g.cls.limit) ? limitClause(g) : undefined;
  return { query: { ...compound, orderBy: order.keys, limit }, outputs, ordered: order.ordered, uniqueItems: undefined, itemTexts: positions, itemNames: chain.names };
}

function allOps(c: Compound): Compound {
  const term = (t: CompoundTerm): CompoundTerm => (t.kind === 'paren' && t.query.kind === 'compound' ? { kind: 'paren', query: allOps(t.query) } : t);
  return { ...c, first: term(c.first), rest: c.rest.map((r) => ({ op: 'UNION ALL', term: term(r.term) })) };
}

/** `t0 op t1 [op t2]`, each term a branch or (depth < 2) a nested chain. */
function chainOf(g: Gen, kinds: readonly Want[], depth: number): Chain {
  const n = g.c.chance(0.35) ? 3 : 2;
  const leaves: Select[] = [];
  let names: string[] = [];
  let first: CompoundTerm | undefined;
  const rest: { op: SetOp; term: CompoundTerm }[] = [];
  for (let i = 0; i < n; i++) {
    const t = termOf(g, kinds, depth, i === 0);
    leaves.push(...t.leaves);
    if (i === 0) {
      names = t.names;
      first = t.term;
    } else rest.push({ op: g.c.weighted(OPS), term: t.term });
  }
  return { compound: { kind: 'compound', first: first!, rest, orderBy: [], limit: undefined }, leaves, names };
}

function termOf(g: Gen, kinds: readonly Want[], depth: number, first: boolean): { term: CompoundTerm; leaves: Select[]; names: string[] } {
  if (depth < 2 && g.c.chance(depth === 0 ? 0.45 : 0.2)) {
    const inner = chainOf(g, kinds, depth + 1);
    if (g.dialect === 'mysql' && g.c.chance(0.7)) return { term: { kind: 'paren', query: inner.compound }, leaves: inner.leaves, names: inner.names };
    // SQLite (and MariaDB sometimes): the nested chain as a FROM subquery.
    const alias = g.subAlias('u');
    const outputs = outputsOf(inner.leaves[0]!, g.dialect, true);
    const cols = inner.names.map((name, i) => columnExpr(virtualColumn(alias, name, outputs[i]!)));
    const names = first ? inner.names.map(() => g.alias('v')) : inner.names;
    const select = selectOf({ items: items(...cols.map((c, i) => [c, first ? names[i] : undefined] as const)), from: { kind: 'compoundFrom', query: inner.compound, alias } });
    return { term: select, leaves: inner.leaves.length > 0 ? [select, ...inner.leaves.slice(1)] : [select], names: first ? names : inner.names };
  }
  const branch = unionBranch(g, kinds, first, true);
  // MariaDB: a parenthesized branch may have its own top-N (numbers only: no case variants tie).
  if (g.dialect === 'mysql' && kinds.every((k) => k === 'num') && g.c.chance(0.2)) {
    const s = branch.select;
    const positions = (s.items as readonly SelectItem[]).map((_, i) => ({ term: { kind: 'position', index: i + 1 } as const, direction: g.c.pick([undefined, 'DESC'] as const) }));
    return { term: { kind: 'paren', query: { ...s, distinct: true, orderBy: positions, limit: { count: g.c.pick([1, 2, 3]), offset: undefined, form: 'offset' } } }, leaves: [s], names: branch.names };
  }
  return { term: branch.select, leaves: [branch.select], names: branch.names };
}

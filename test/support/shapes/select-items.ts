import type { Expr, SelectItem } from './ast.js';
import type { Gen } from './context.js';
import { exprText } from './print.js';
import { containsAggregate } from './typing.js';

const AGGREGATE_ALIASES = ['n', 'total', 's', 'revenue', 'hi', 'lo', 'avg_v', 'cnt'];

/** Names the select items: aliases where asked for or needed so that no two output columns share a name. */
export function nameItems(g: Gen, exprs: readonly Expr[], forceAlias: boolean): { items: SelectItem[]; names: string[] } {
  const used = new Set<string>();
  const items: SelectItem[] = [];
  const names: string[] = [];
  for (const expr of exprs) {
    const natural = expr.kind === 'column' ? expr.column.name : exprText(expr, g.dialect);
    const literal = expr.kind === 'literal' || expr.kind === 'param' || expr.kind === 'hex';
    let alias: string | undefined;
    if (forceAlias || literal || used.has(natural) || g.c.chance(0.55)) {
      alias = g.alias(containsAggregate(expr) ? g.c.pick(AGGREGATE_ALIASES) : 'v');
    }
    const name = alias ?? natural;
    used.add(name);
    items.push({ expr, alias });
    names.push(name);
  }
  return { items, names };
}

/** Inserts `x` at a random position (choice 0: at the front). */
export function insertAt<T>(g: Gen, list: T[], x: T): void {
  list.splice(g.c.int(list.length + 1), 0, x);
}


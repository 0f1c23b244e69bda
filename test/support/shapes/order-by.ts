import type { Cond, Expr, Limit, OrderKey, SelectItem, Term, Typed } from './ast.js';
import type { Gen } from './context.js';
import { exprText } from './print.js';
import { typeOf } from './typing.js';

// ORDER BY and LIMIT, and the decision the whole harness rests on: whether the ORDER BY fixes
// the order of the rows completely. Only then may a LIMIT follow, and only then are the two
// answers compared in order.

/**
 * No column, aggregate or subquery inside: a constant. An integer constant as an ORDER BY /
 * GROUP BY term is a position, and SQLite folds `(100 IS NULL)` into one.
 */
export function isConstant(e: Expr): boolean {
  switch (e.kind) {
    case 'literal':
    case 'param':
    case 'hex':
      return true;
    case 'arith':
      return isConstant(e.left) && isConstant(e.right);
    case 'call':
      return e.args.every(isConstant);
    case 'case':
      return isConstant(e.then) && (e.otherwise === undefined || isConstant(e.otherwise)) && condIsConstant(e.when);
    case 'truth':
      return condIsConstant(e.cond);
    default:
      return false;
  }
}

function condIsConstant(c: Cond): boolean {
  switch (c.kind) {
    case 'compare':
      return isConstant(c.left) && isConstant(c.right);
    case 'isNull':
    case 'like':
      return isConstant(c.arg);
    case 'inList':
      return isConstant(c.arg) && c.items.every(isConstant);
    case 'between':
      return isConstant(c.arg) && isConstant(c.low) && isConstant(c.high);
    case 'logic':
      return c.items.every(condIsConstant);
    case 'not':
      return condIsConstant(c.arg);
    default:
      return false;
  }
}

export interface OrderContext {
  readonly items: readonly SelectItem[];
  readonly itemTexts: readonly string[];
  readonly outputs: readonly Typed[];
  /** DISTINCT and UNION: ORDER BY may only name select items. */
  readonly onlyItems: boolean;
  /** Select items may be repeated as expressions (not in a UNION). */
  readonly exprTerms: boolean;
  /** What identifies a row ([] = at most one row), if anything. */
  readonly unique: readonly Expr[] | undefined;
  readonly extra: () => Expr;
}

/**
 * ORDER BY terms, and whether they fix the order: they do when they cover a unique set of
 * the rows, or every output column when no two distinct outputs can tie (on MariaDB, text
 * compared exactly can tie with another case variant under the `_ci` collation).
 */
export function orderClause(g: Gen, ctx: OrderContext): { keys: OrderKey[]; ordered: boolean } {
  const keys: OrderKey[] = [];
  const covered = new Set<string>();
  const direction = (): OrderKey['direction'] => {
    const d = g.c.pick([undefined, 'ASC', 'DESC'] as const);
    return d;
  };
  const itemTerm = (i: number): Term => {
    const item = ctx.items[i]!;
    const form = g.c.weighted<string>([
      [1, 'position'],
      [item.alias ? 1.2 : 0, 'alias'],
      [ctx.exprTerms && !isConstant(item.expr) ? 1 : 0, 'expr'],
    ]);
    return form === 'position' ? { kind: 'position', index: i + 1 } : form === 'alias' ? { kind: 'alias', name: item.alias! } : { kind: 'expr', expr: item.expr };
  };
  const add = (term: Term, text: string) => {
    covered.add(text);
    keys.push({ term, direction: direction() });
  };
  if (g.c.chance(g.cls.orderBy)) {
    const n = g.c.between(1, 3);
    for (let k = 0; k < n; k++) {
      if (ctx.onlyItems || !g.c.chance(g.cls.orderByExpression)) {
        const i = g.c.int(ctx.items.length);
        if (ctx.outputs[i]!.exact && !covered.has(ctx.itemTexts[i]!)) add(itemTerm(i), ctx.itemTexts[i]!);
      } else {
        const e = ctx.extra();
        if (isConstant(e)) continue;
        const text = exprText(e, g.dialect);
        if (!typeOf(e, g.dialect).exact || covered.has(text)) continue;
        add({ kind: 'expr', expr: e }, text);
      }
    }
    if (g.c.chance(g.cls.tiebreak)) {
      const unique = ctx.unique;
      const itemsCover = unique?.every((u) => !ctx.onlyItems || ctx.itemTexts.includes(exprText(u, g.dialect)));
      if (unique && itemsCover) {
        for (const u of unique) {
          const text = exprText(u, g.dialect);
          if (covered.has(text)) continue;
          const i = ctx.itemTexts.indexOf(text);
          add(i >= 0 ? itemTerm(i) : { kind: 'expr', expr: u }, text);
        }
      } else {
        ctx.items.forEach((_, i) => {
          if (ctx.outputs[i]!.exact && !covered.has(ctx.itemTexts[i]!)) add(itemTerm(i), ctx.itemTexts[i]!);
        });
      }
    }
  }
  const uniqueCovered = ctx.unique !== undefined && ctx.unique.every((u) => covered.has(exprText(u, g.dialect)));
  const caseTies = g.dialect === 'mysql' && ctx.outputs.some((o) => o.type === 'text' && !o.anyCase);
  const allCovered = ctx.itemTexts.every((t) => covered.has(t)) && !caseTies;
  return { keys, ordered: uniqueCovered || allCovered };
}

export function limitClause(g: Gen): Limit {
  const count = g.c.pick([3, 1, 2, 5, 8, 10, 20, 0]);
  const offset = g.c.chance(0.45) ? g.c.pick([1, 2, 5, 10, 25, 0]) : undefined;
  return { count, offset, form: g.c.pick(['offset', 'comma', 'params'] as const) };
}


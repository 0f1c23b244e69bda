/**
 * Whole-tree questions over the planner's typed nodes, each answered in one place.
 */
import type { AggregateNode, FromItem, SelectNode, SqlNode, WindowSpec } from './sql-node.js';

/** The direct expression children of a node (a subquery's own tree is not one of them). */
export function childrenOf(node: SqlNode): readonly SqlNode[] {
  switch (node.kind) {
    case 'column':
    case 'star':
    case 'slot':
    case 'in-list':
    case 'literal':
    case 'subquery':
    case 'keyword':
      return [];
    case 'binary':
      return [node.left, node.right];
    case 'unary':
      return [node.operand];
    case 'function':
      return node.over ? [...node.args, ...windowExpressionsOf(node.over)] : node.args;
    case 'aggregate':
      return [...node.args, ...node.orderBy.map((o) => o.expr), ...(node.over ? windowExpressionsOf(node.over) : [])];
    case 'case':
      return [
        ...(node.operand ? [node.operand] : []),
        ...node.branches.flatMap((b) => [b.when, b.then]),
        ...(node.otherwise ? [node.otherwise] : []),
      ];
    case 'cast':
      return [node.operand];
    case 'list':
      return node.items;
    case 'interval':
      return [node.value];
    case 'shard-evaluated':
      return node.children;
  }
}

/** The expressions of a window: its PARTITION BY and ORDER BY items (a frame's offsets are constants). */
export function windowExpressionsOf(spec: WindowSpec): SqlNode[] {
  return [...spec.partitionBy, ...spec.orderBy.map((o) => o.expr)];
}

/** True when `test` holds for the node or any node below it, not looking into subqueries. */
export function someNode(node: SqlNode, test: (n: SqlNode) => boolean): boolean {
  let found = false;
  walk(node, (n) => {
    if (test(n)) found = true;
    return found ? 'stop' : 'down';
  });
  return found;
}

/** Calls `visit` for the node and every node below it (parents first), not looking into subqueries. */
export function forEachNode(node: SqlNode, visit: (n: SqlNode) => void): void {
  walk(node, (n) => {
    visit(n);
    return 'down';
  });
}

/**
 * Visits the node and those below it, parents first and children in order, with an explicit
 * stack: TypeORM writes an OR of thousands of rows (`findBy([{ a, b }, …])`), one tree level
 * each, deeper than the call stack goes. `visit` says whether to go below a node, skip it, or stop.
 */
function walk(node: SqlNode, visit: (n: SqlNode) => 'down' | 'skip' | 'stop'): void {
  const stack: SqlNode[] = [node];
  while (stack.length > 0) {
    const n = stack.pop()!;
    const next = visit(n);
    if (next === 'stop') return;
    if (next === 'skip') continue;
    const children = childrenOf(n);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
}

/** The operands of a chain of one operator (`a OR b OR c` → a, b, c), in text order; the node itself when it is none. */
export function chainOf(node: SqlNode, op: string): SqlNode[] {
  const out: SqlNode[] = [];
  const stack: SqlNode[] = [node];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.kind === 'binary' && n.op === op) stack.push(n.right, n.left);
    else out.push(n);
  }
  return out;
}

/** True when an aggregate (not a window aggregate) occurs anywhere in the expression. */
export function containsAggregate(node: SqlNode): boolean {
  return someNode(node, (n) => n.kind === 'aggregate' && !n.over);
}

/** The aggregates of an expression, outermost first (an aggregate's own arguments are not searched). */
export function aggregatesOf(node: SqlNode): AggregateNode[] {
  const found: AggregateNode[] = [];
  walk(node, (n) => {
    if (n.kind !== 'aggregate' || n.over) return 'down';
    found.push(n);
    return 'skip';
  });
  return found;
}

/** True when a window function occurs anywhere in the expression. */
export function containsWindow(node: SqlNode): boolean {
  return someNode(node, (n) => (n.kind === 'function' || n.kind === 'aggregate') && n.over !== undefined);
}

/** The expression nodes of one SELECT's own clauses (not those of its subqueries or derived tables). */
export function clauseExpressionsOf(select: SelectNode): SqlNode[] {
  return [
    ...select.items.map((i) => i.expr),
    ...select.from.flatMap((f) => (f.on ? [f.on] : [])),
    ...select.from.flatMap((f) => (f.kind === 'values' ? f.rows.flat() : [])),
    ...(select.where ? [select.where] : []),
    ...select.groupBy,
    ...(select.having ? [select.having] : []),
    ...select.orderBy.map((o) => o.expr),
    ...(select.limit ? [select.limit.count, ...(select.limit.offset ? [select.limit.offset] : [])] : []),
    ...select.windows.flatMap((w) => windowExpressionsOf(w.spec)),
  ];
}

/** Subqueries used as expressions in one SELECT's own clauses. */
export function expressionSubqueriesOf(select: SelectNode): SelectNode[] {
  const found: SelectNode[] = [];
  for (const expr of clauseExpressionsOf(select)) {
    forEachNode(expr, (n) => {
      if (n.kind === 'subquery') found.push(n.query);
    });
  }
  return found;
}

/** The derived tables of a FROM list. */
export function derivedQueriesOf(from: readonly FromItem[]): SelectNode[] {
  return from.flatMap((f) => (f.kind === 'derived' ? [f.query] : []));
}

/** Every SELECT of a statement, the root first: derived tables, subqueries, UNION branches, CTE bodies. */
export function allSelectsOf(root: SelectNode): SelectNode[] {
  const found: SelectNode[] = [];
  const visit = (select: SelectNode): void => {
    found.push(select);
    select.with?.ctes.forEach((cte) => visit(cte.query));
    derivedQueriesOf(select.from).forEach(visit);
    expressionSubqueriesOf(select).forEach(visit);
    if (select.compound) visit(select.compound.next);
  };
  visit(root);
  return found;
}

/** The terms of a condition joined by AND at its top (a term under OR or NOT is not one). */
export function conjunctsOf(node: SqlNode | undefined): SqlNode[] {
  return node ? chainOf(node, 'AND') : [];
}

/**
 * True when two expressions are the same tree (used to match ORDER BY / GROUP BY items to select
 * items): the same fields with the same values, a field holding undefined counting as absent.
 * Iterative, for trees of any depth (a long OR chain is one level per link).
 */
export function sameExpression(a: SqlNode, b: SqlNode): boolean {
  const pairs: [unknown, unknown][] = [[a, b]];
  while (pairs.length > 0) {
    const [x, y] = pairs.pop()!;
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    if (Array.isArray(x)) {
      const ys = y as unknown[];
      if (x.length !== ys.length) return false;
      for (let i = 0; i < x.length; i++) pairs.push([x[i], ys[i]]);
      continue;
    }
    const xo = x as Record<string, unknown>;
    const yo = y as Record<string, unknown>;
    const keys = Object.keys(xo).filter((k) => xo[k] !== undefined);
    if (keys.length !== Object.keys(yo).filter((k) => yo[k] !== undefined).length) return false;
    for (const k of keys) pairs.push([xo[k], yo[k]]);
  }
  return true;
}

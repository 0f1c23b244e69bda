/**
 * Common table expressions (`WITH …`) for the planner.
 *
 * The physical statements keep the original text, `WITH` and all: each shard computes every
 * CTE over its own rows. That is what one database computes when the CTE reads no sharded
 * table (its rows are the same on every shard: broadcast tables, constants, a recursive CTE
 * over either), so such a CTE stays as it is and its name is no table (`tableRefsOf`).
 *
 * A CTE over a sharded table is exact only where a derived table in its place would be: a
 * non-recursive CTE referenced once is therefore planned as that derived table (the statement
 * text is unchanged; on each shard `WITH t AS (q) … FROM t` computes what `FROM (q) t` does),
 * and the derived-table rules decide (`innerSelectProblem`, routing by its WHERE, windows …).
 * A CTE referenced twice or more, or a recursive CTE over a sharded table, is refused.
 */
import { UnsupportedShardingError } from '../../errors/index.js';
import type { ShardingRules } from '../../rules/index.js';
import type { CommonTableExpression, FromItem, SelectNode, SqlNode, WindowSpec } from '../nodes/sql-node.js';
import { tableRefsOf } from '../nodes/table-refs.js';
import { chainOf, someNode } from '../nodes/sql-tree.js';

/** The SELECT with every CTE over a sharded table planned as a derived table; refuses what cannot be. */
export function withCtesResolved(root: SelectNode, rules: ShardingRules, sql: string): SelectNode {
  return resolveSelect(root, rules, sql);
}

function shardedTableOf(query: SelectNode, rules: ShardingRules): string | undefined {
  return tableRefsOf(query, rules).find((r) => r.rule?.distribution === 'sharded')?.name;
}

function resolveSelect(select: SelectNode, rules: ShardingRules, sql: string): SelectNode {
  let current: SelectNode = mapChildren(select, (child) => resolveSelect(child, rules, sql));
  const clause = current.with;
  if (!clause) return current;
  const kept: CommonTableExpression[] = [];
  let ctes = [...clause.ctes];
  while (ctes.length > 0) {
    const cte = ctes.shift()!;
    const sharded = shardedTableOf(cte.query, rules);
    if (sharded === undefined) {
      kept.push(cte);
      continue;
    }
    if (clause.recursive) {
      throw new UnsupportedShardingError(
        `The recursive CTE "${cte.name}" reads sharded table "${sharded}": each shard would recurse over its own rows only. Query the rows first, or run it on one shard with getShardDataSource(name).query().`,
        { sql },
      );
    }
    const uses = countReferences(current, cte.name) + ctes.reduce((n, later) => n + countReferences(later.query, cte.name), 0);
    if (uses === 0) continue;
    if (uses > 1) {
      throw new UnsupportedShardingError(
        `The CTE "${cte.name}" reads sharded table "${sharded}" and is referenced ${uses} times: each reference would be computed shard by shard and paired only with rows of the same shard. Write it as a derived table (FROM (SELECT …) alias) where it is used once, or query it separately.`,
        { sql },
      );
    }
    const body = derivedBodyOf(cte, sql);
    current = replaceReference(current, cte.name, body);
    ctes = ctes.map((later) => ({ ...later, query: replaceReference(later.query, cte.name, body) }));
  }
  return { ...current, with: kept.length > 0 ? { recursive: clause.recursive, ctes: kept } : undefined };
}

/** The CTE's query as a derived table's: its column list names the items. */
function derivedBodyOf(cte: CommonTableExpression, sql: string): SelectNode {
  if (cte.columns.length === 0) return cte.query;
  if (cte.query.compound || cte.query.items.length !== cte.columns.length || cte.query.items.some((i) => i.expr.kind === 'star')) {
    throw new UnsupportedShardingError(`The CTE "${cte.name}" over a sharded table names its columns (${cte.columns.join(', ')}) for a select list the planner cannot pair them with; alias the select items instead.`, { sql });
  }
  return { ...cte.query, items: cte.query.items.map((item, i) => ({ ...item, alias: cte.columns[i] })) };
}

const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** FROM items naming `name`, in the select, its derived tables, subqueries and UNION branches. */
function countReferences(select: SelectNode, name: string): number {
  let count = select.from.filter((f) => f.kind === 'table' && sameName(f.table, name)).length;
  forEachChild(select, (child) => {
    count += countReferences(child, name);
  });
  return count;
}

/** The select with the FROM item naming `name` replaced by `body` as a derived table. */
function replaceReference(select: SelectNode, name: string, body: SelectNode): SelectNode {
  const from = select.from.map((f): FromItem => (f.kind === 'table' && sameName(f.table, name) ? { kind: 'derived', query: body, alias: f.alias ?? f.table, join: f.join, on: f.on, using: f.using } : f));
  return mapChildren({ ...select, from }, (child) => replaceReference(child, name, body));
}

/** Calls `visit` for each SELECT directly below `select` (derived tables, expression subqueries, the next UNION branch, CTE bodies). */
function forEachChild(select: SelectNode, visit: (child: SelectNode) => void): void {
  mapChildren(select, (child) => {
    visit(child);
    return child;
  });
}

/** A copy of `select` whose child SELECTs are replaced by `map`'s results. */
function mapChildren(select: SelectNode, map: (child: SelectNode) => SelectNode): SelectNode {
  // A clause without a subquery stays as it is (found without recursing: a WHERE may be an OR of thousands of terms).
  const expr = (node: SqlNode): SqlNode => (someNode(node, (n) => n.kind === 'subquery') ? mapSubqueries(node, map) : node);
  const opt = (node: SqlNode | undefined) => (node ? expr(node) : undefined);
  return {
    ...select,
    items: select.items.map((i) => ({ ...i, expr: expr(i.expr) })),
    from: select.from.map((f): FromItem => {
      const on = opt(f.on);
      if (f.kind === 'derived') return { ...f, query: map(f.query), on };
      if (f.kind === 'values') return { ...f, rows: f.rows.map((r) => r.map(expr)), on };
      return { ...f, on };
    }),
    where: opt(select.where),
    groupBy: select.groupBy.map(expr),
    having: opt(select.having),
    orderBy: select.orderBy.map((o) => ({ ...o, expr: expr(o.expr) })),
    windows: select.windows.map((w) => ({ ...w, spec: mapWindow(w.spec, expr)! })),
    with: select.with ? { ...select.with, ctes: select.with.ctes.map((c) => ({ ...c, query: map(c.query) })) } : undefined,
    compound: select.compound ? { ...select.compound, next: map(select.compound.next) } : undefined,
  };
}

function mapWindow(spec: WindowSpec | undefined, m: (n: SqlNode) => SqlNode): WindowSpec | undefined {
  return spec ? { ...spec, partitionBy: spec.partitionBy.map(m), orderBy: spec.orderBy.map((o) => ({ ...o, expr: m(o.expr) })) } : undefined;
}

/** A copy of `node` whose subqueries' SELECTs are replaced by `map`'s results. */
function mapSubqueries(node: SqlNode, map: (child: SelectNode) => SelectNode): SqlNode {
  const m = (n: SqlNode) => mapSubqueries(n, map);
  switch (node.kind) {
    case 'subquery':
      return { ...node, query: map(node.query) };
    case 'binary': {
      if (node.op !== 'AND' && node.op !== 'OR') return { ...node, left: m(node.left), right: m(node.right) };
      // A chain is mapped link by link, left-deep as the converter builds it.
      const [first, ...rest] = chainOf(node, node.op).map(m);
      let out = first!;
      for (const operand of rest) out = { kind: 'binary', op: node.op, left: out, right: operand };
      return out;
    }
    case 'unary':
      return { ...node, operand: m(node.operand) };
    case 'function':
      return { ...node, args: node.args.map(m), over: mapWindow(node.over, m) };
    case 'aggregate':
      return { ...node, args: node.args.map(m), orderBy: node.orderBy.map((o) => ({ ...o, expr: m(o.expr) })), over: mapWindow(node.over, m) };
    case 'case':
      return { ...node, operand: node.operand ? m(node.operand) : undefined, branches: node.branches.map((b) => ({ when: m(b.when), then: m(b.then) })), otherwise: node.otherwise ? m(node.otherwise) : undefined };
    case 'cast':
      return { ...node, operand: m(node.operand) };
    case 'list':
      return { ...node, items: node.items.map(m) };
    case 'interval':
      return { ...node, value: m(node.value) };
    case 'shard-evaluated':
      return { ...node, children: node.children.map(m) };
    case 'column':
    case 'star':
    case 'slot':
    case 'in-list':
    case 'literal':
    case 'keyword':
      return node;
  }
}

import type { ShardingRules } from '../../rules/index.js';
import type { FromItem, SelectNode, SqlNode } from '../nodes/sql-node.js';
import { allSelectsOf } from '../nodes/sql-tree.js';

/** Comparisons that are never true when their column operand is NULL. */
const NULL_REJECTING = new Set(['=', '<>', '!=', '<', '>', '<=', '>=', 'LIKE', 'NOT LIKE', 'IN', 'NOT IN', 'BETWEEN', 'NOT BETWEEN', 'REGEXP', 'RLIKE']);

/**
 * Why a scattered SELECT would repeat rows of broadcast tables, or undefined. Each shard holds
 * every broadcast row, so a result row that carries no row of a sharded table comes back from
 * every shard: the preserved side of an outer join of a broadcast table with a sharded one
 * (`tag LEFT JOIN product_tags_tag …`, the inverse side of a many-to-many relation).
 *
 * A select is exact per shard when every row it returns carries a (non-NULL) row of a sharded
 * table: its first FROM item is sharded, a sharded item is inner-joined or right-joined, or
 * the WHERE rejects NULL in a column of a sharded item (`WHERE product.name = ?` turns the
 * LEFT JOIN into an inner one). Checked for the statement and its FROM subqueries; the
 * statement is then refused when it reaches several shards and passes through when it reaches one.
 */
export function repeatedRowsProblem(root: SelectNode, rules: ShardingRules): string | undefined {
  const tableIsSharded = (name: string) => rules.distributionOf(name) === 'sharded';
  const itemIsSharded = (item: FromItem): boolean =>
    item.kind === 'table' ? tableIsSharded(item.table) : item.kind === 'derived' ? allSelectsOf(item.query).some((s) => s.from.some((i) => i.kind === 'table' && tableIsSharded(i.table))) : false;
  const nameOf = (item: FromItem): string => (item.kind === 'table' ? item.table : (item.alias ?? 'a subquery'));
  const aliasOf = (item: FromItem): string | undefined => item.alias ?? (item.kind === 'table' ? item.table : undefined);

  const visit = (select: SelectNode): string | undefined => {
    const items = select.from;
    for (const item of items) {
      const inner = item.kind === 'derived' ? visit(item.query) : undefined;
      if (inner) return inner;
    }
    const sharded = items.map(itemIsSharded);
    if (!sharded.some(Boolean)) return undefined;
    const rejected = nullRejectedAliases(select.where);
    let carries = sharded[0]!;
    let outer: { kind: string; k: number } | undefined;
    for (let k = 1; k < items.length; k++) {
      const item = items[k]!;
      const join = item.join ?? '';
      if (join.startsWith('LEFT')) {
        if (sharded[k] && !carries) outer ??= { kind: 'LEFT', k };
      } else if (join.startsWith('RIGHT')) {
        if (!sharded[k]) outer ??= { kind: 'RIGHT', k };
        carries = sharded[k]!;
      } else {
        carries ||= sharded[k]!;
      }
    }
    carries ||= items.some((item, k) => sharded[k] && rejected.has(aliasOf(item) ?? ''));
    if (carries || !outer) return undefined;
    return outerJoinText(outer.kind, items[outer.k]!, items.slice(0, outer.k), nameOf);
  };
  return visit(root);
}

/** Aliases with a column that an AND-ed WHERE term compares in a way NULL never satisfies. */
function nullRejectedAliases(where: SqlNode | undefined): Set<string> {
  const aliases = new Set<string>();
  const visit = (n: SqlNode | undefined): void => {
    if (!n || n.kind !== 'binary') return;
    if (n.op === 'AND') {
      visit(n.left);
      visit(n.right);
      return;
    }
    const isNotNull = n.op === 'IS NOT' && n.right.kind === 'literal' && n.right.value === null;
    if (!NULL_REJECTING.has(n.op) && !isNotNull) return;
    for (const side of isNotNull ? [n.left] : [n.left, n.right]) {
      if (side.kind === 'column' && side.table !== undefined) aliases.add(side.table);
    }
  };
  visit(where);
  return aliases;
}

function outerJoinText(kind: string, item: FromItem, before: readonly FromItem[], nameOf: (item: FromItem) => string): string {
  const preserved = kind === 'LEFT' ? before.map(nameOf).join('", "') : nameOf(item);
  const joined = kind === 'LEFT' ? nameOf(item) : before.map(nameOf).join('", "');
  return (
    `a ${kind} JOIN that keeps the rows of "${preserved}" (not sharded) that have no match in "${joined}" (sharded): every shard would return those rows, so they would repeat; ` +
    "query from the sharded side, use an INNER JOIN, or load the relation with relationLoadStrategy: 'query'"
  );
}

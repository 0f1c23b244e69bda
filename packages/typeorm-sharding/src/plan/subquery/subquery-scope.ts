/**
 * Is a subquery correlated? It is when one of its column references (at any depth) names a
 * column that no table inside it provides, so that SQL resolves it in an enclosing query.
 * Only an uncorrelated subquery has one result for the whole statement and may be run first.
 */
import type { SqlDialect } from '../../parameterize/index.js';
import type { ShardingRules } from '../../rules/index.js';
import type { ColumnNode, FromItem, SelectNode, SqlNode, StarNode } from '../nodes/sql-node.js';
import { forEachNode } from '../nodes/sql-tree.js';

/** One FROM item as a scope sees it: the name queries use for it and the columns it provides. */
interface ScopeItem {
  readonly name: string;
  /** Lower-case column names; undefined when not known (a table no entity declares). */
  readonly columns: ReadonlySet<string> | undefined;
}

interface Scope {
  readonly items: readonly ScopeItem[];
  /** Lower-case select-item aliases, visible to GROUP BY, HAVING and ORDER BY. */
  readonly aliases: ReadonlySet<string>;
}

/**
 * The first column reference inside `query` that resolves to no table inside it: a reference
 * to an enclosing query. An unqualified column that no known table inside provides counts as
 * one (conservatively, also when an inside table is not an entity and its columns are unknown).
 */
export function outerReferenceOf(query: SelectNode, rules: ShardingRules, dialect: SqlDialect): ColumnNode | StarNode | undefined {
  // MySQL table aliases are case-sensitive (the default on Linux); SQLite's are not.
  const sameName = dialect === 'sqlite' ? (a: string, b: string) => a.toLowerCase() === b.toLowerCase() : (a: string, b: string) => a === b;

  const resolves = (node: ColumnNode | StarNode, chain: readonly Scope[], aliasesVisible: boolean): boolean => {
    if (node.table !== undefined) return chain.some((scope) => scope.items.some((item) => sameName(item.name, node.table!)));
    if (node.kind === 'star') return true;
    const column = node.column.toLowerCase();
    const own = chain[chain.length - 1]!;
    if (aliasesVisible && own.aliases.has(column)) return true;
    for (let i = chain.length - 1; i >= 0; i--) {
      const items = chain[i]!.items;
      if (items.some((item) => item.columns?.has(column))) return true;
      // A table of unknown columns may or may not provide it: not provably inside.
      if (items.some((item) => item.columns === undefined)) return false;
    }
    return false;
  };

  const visit = (select: SelectNode, enclosing: readonly Scope[]): ColumnNode | StarNode | undefined => {
    const scope: Scope = {
      items: select.from.flatMap((item) => scopeItemOf(item, rules)),
      aliases: new Set(select.items.flatMap((i) => (i.alias ? [i.alias.toLowerCase()] : []))),
    };
    const chain = [...enclosing, scope];
    // A derived table sees the queries around this one, not its sibling FROM items.
    for (const item of select.from) {
      if (item.kind !== 'derived') continue;
      const found = visit(item.query, enclosing);
      if (found) return found;
    }
    const clauses: [SqlNode | undefined, boolean][] = [
      ...select.items.map((i): [SqlNode, boolean] => [i.expr, false]),
      ...select.from.map((f): [SqlNode | undefined, boolean] => [f.on, false]),
      [select.where, false],
      ...select.groupBy.map((g): [SqlNode, boolean] => [g, true]),
      [select.having, true],
      ...select.orderBy.map((o): [SqlNode, boolean] => [o.expr, true]),
    ];
    for (const [expr, aliasesVisible] of clauses) {
      if (!expr) continue;
      let found: ColumnNode | StarNode | undefined;
      forEachNode(expr, (n) => {
        if (found) return;
        if (n.kind === 'column' || n.kind === 'star') {
          if (!resolves(n, chain, aliasesVisible)) found = n;
        } else if (n.kind === 'subquery') {
          found = visit(n.query, chain);
        }
      });
      if (found) return found;
    }
    return select.compound ? visit(select.compound.next, enclosing) : undefined;
  };
  return visit(query, []);
}

function scopeItemOf(item: FromItem, rules: ShardingRules): ScopeItem[] {
  if (item.kind === 'table') {
    const rule = rules.ruleOf(item.table);
    const columns = rule ? new Set(rule.metadata.columns.map((c) => c.databaseName.toLowerCase())) : undefined;
    return [{ name: item.alias ?? item.table, columns }];
  }
  if (item.kind === 'derived') return item.alias ? [{ name: item.alias, columns: derivedColumnsOf(item.query, rules) }] : [];
  return item.alias ? [{ name: item.alias, columns: undefined }] : [];
}

/** The column names a derived table provides (undefined when one of them cannot be known). */
function derivedColumnsOf(query: SelectNode, rules: ShardingRules): ReadonlySet<string> | undefined {
  const names = new Set<string>();
  for (const item of query.items) {
    if (item.alias) names.add(item.alias.toLowerCase());
    else if (item.expr.kind === 'column') names.add(item.expr.column.toLowerCase());
    else if (item.expr.kind === 'star') {
      for (const source of query.from) {
        const alias = source.alias ?? (source.kind === 'table' ? source.table : undefined);
        if (item.expr.table !== undefined && alias !== item.expr.table) continue;
        for (const inner of scopeItemOf(source, rules)) {
          if (inner.columns === undefined) return undefined;
          inner.columns.forEach((c) => names.add(c));
        }
      }
    }
  }
  return names;
}

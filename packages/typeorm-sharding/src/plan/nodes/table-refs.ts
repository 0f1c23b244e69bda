import type { ShardingRules, TableRule } from '../../rules/index.js';
import type { SelectNode } from './sql-node.js';
import { expressionSubqueriesOf } from './sql-tree.js';
import type { SqlDialect } from '../../parameterize/index.js';
import { isIdentifier, statementTokens } from './statement-tokens.js';

/** One table named in a FROM clause (any depth), with the select it belongs to. */
export interface TableRef {
  readonly name: string;
  /** The name the query uses for it: its alias, else its name. */
  readonly alias: string;
  readonly rule: TableRule | undefined;
  /** The SELECT whose FROM lists this table. */
  readonly home: SelectNode;
}

/**
 * Every real table of a statement: FROM items of every select, derived tables, subqueries and
 * CTE bodies included, in the order of `allSelectsOf`. A FROM item naming a CTE in scope is no
 * table (its body's tables are listed instead): a CTE of `WITH` is visible to the statement and,
 * in a non-recursive `WITH`, to the CTEs after it; in `WITH RECURSIVE`, to every CTE of the list.
 */
export function tableRefsOf(root: SelectNode, rules: ShardingRules): TableRef[] {
  const refs: TableRef[] = [];
  const visit = (select: SelectNode, visible: ReadonlySet<string>): void => {
    let scope = visible;
    const names = select.with?.ctes.map((c) => c.name.toLowerCase()) ?? [];
    if (names.length > 0) scope = new Set([...visible, ...names]);
    for (const item of select.from) {
      if (item.kind !== 'table' || item.table.toLowerCase() === 'dual' || scope.has(item.table.toLowerCase())) continue;
      refs.push({ name: item.table, alias: item.alias ?? item.table, rule: rules.ruleOf(item.table), home: select });
    }
    select.with?.ctes.forEach((cte, i) => visit(cte.query, select.with!.recursive ? scope : new Set([...visible, ...names.slice(0, i)])));
    for (const item of select.from) if (item.kind === 'derived') visit(item.query, scope);
    expressionSubqueriesOf(select).forEach((q) => visit(q, scope));
    if (select.compound) visit(select.compound.next, scope);
  };
  visit(root, new Set());
  return refs;
}
/** Distinct backtick-quoted identifiers of a parserSql text: a cheap pre-check before parsing. */
export function quotedIdentifiersOf(parserSql: string): string[] {
  const names = new Set<string>();
  const re = /`((?:[^`]|``)+)`/g;
  for (let m = re.exec(parserSql); m; m = re.exec(parserSql)) names.add(m[1]!.replace(/``/g, '`'));
  return [...names];
}

/**
 * True when the statement names a sharded or broadcast table: any word or quoted identifier
 * spelled like one, however it is quoted (`orders`, `` `orders` ``, `"orders"`, `orders(`).
 * A column that happens to share a table's name only costs a parse; a table never slips by.
 */
export function mentionsDistributedTable(sql: string, dialect: SqlDialect, rules: ShardingRules): boolean {
  for (const token of statementTokens(sql, dialect)) {
    if (isIdentifier(token) && rules.distributionOf(token.text) !== 'unsharded') return true;
  }
  return false;
}

import type { ShardingRules, TableRule } from '../../rules/index.js';
import type { SelectNode } from './sql-node.js';
import { allSelectsOf } from './sql-tree.js';
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

/** Every real table of a statement: FROM items of every select, derived tables and subqueries included. */
export function tableRefsOf(root: SelectNode, rules: ShardingRules): TableRef[] {
  const refs: TableRef[] = [];
  for (const select of allSelectsOf(root)) {
    for (const item of select.from) {
      if (item.kind !== 'table' || item.table.toLowerCase() === 'dual') continue;
      refs.push({ name: item.table, alias: item.alias ?? item.table, rule: rules.ruleOf(item.table), home: select });
    }
  }
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

/**
 * TypeORM's SQLite table rebuild. SQLite cannot alter most of a table, so TypeORM's runner
 * (and every migration it generates) rebuilds it:
 *
 * ```sql
 * CREATE TABLE "temporary_orders" (…new definition…)
 * INSERT INTO "temporary_orders"("id", …) SELECT "id", … FROM "orders"
 * DROP TABLE "orders"
 * ALTER TABLE "temporary_orders" RENAME TO "orders"
 * ```
 *
 * (and the reverse in `down` migrations). `temporary_<name>` stands for `<name>` while it is
 * rebuilt, so each of these statements reaches the shards that hold `<name>`, and the copy
 * runs on each of them with that shard's own rows.
 */
import { UnsupportedShardingError } from '../../errors/index.js';
import { TokenKind, type SqlDialect } from '../../parameterize/index.js';
import type { ShardingRules, TableRule } from '../../rules/index.js';
import type { InsertHead } from '../write/insert-head.js';
import type { AllShardsPlan } from '../plan.js';
import { isIdentifier, isKeyword, statementTokens, type StatementToken } from '../nodes/statement-tokens.js';

/** The prefix TypeORM gives the copy of a table it rebuilds. */
export const REBUILD_PREFIX = 'temporary_';

/** The rule of a table named in DDL: its own, or that of the table a `temporary_<name>` copy stands for. */
export function ddlRuleOf(name: string, rules: ShardingRules): TableRule | undefined {
  const own = rules.ruleOf(name);
  if (own) return own;
  return name.toLowerCase().startsWith(REBUILD_PREFIX) ? rules.ruleOf(name.slice(REBUILD_PREFIX.length)) : undefined;
}

/** True when `a` and `b` are a table and its rebuild copy (in either order). */
export function isRebuildPair(a: string, b: string): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x === REBUILD_PREFIX + y || y === REBUILD_PREFIX + x;
}

/**
 * INSERT … SELECT, where a per-shard copy is exact or must be refused:
 * - `INSERT INTO "temporary_t"(cols) SELECT cols FROM "t"` (or back) on a sharded or broadcast
 *   table: every shard copies its own rows. A sharded table's rows stay on their shard only if
 *   the key column is copied into itself, and the source must be the one table, without
 *   joins or subqueries;
 * - any other copy into a rebuild copy of such a table, or into a table that lives on the
 *   default shard only from a sharded table (it would copy one shard's rows): refused.
 * Returns undefined for everything else (the INSERT planner decides).
 */
export function insertSelectPlan(sql: string, dialect: SqlDialect, head: InsertHead, rules: ShardingRules): AllShardsPlan | undefined {
  const tokens = statementTokens(sql, dialect);
  const rule = ddlRuleOf(head.table, rules);
  if (!rule || rule.distribution === 'unsharded') {
    const select = tokens.findIndex((t) => isKeyword(t, 'SELECT'));
    const sharded = tokens.slice(select + 1).find((t) => isIdentifier(t) && rules.distributionOf(t.text) === 'sharded');
    if (select < 0 || !sharded) return undefined;
    throw new UnsupportedShardingError(
      `INSERT … SELECT into "${head.table}", which lives on the default shard only, reads sharded table "${sharded.text}": it would copy only the default shard's rows. Read the rows through the ShardedDataSource and insert them.`,
      { sql, stage: 'write' },
    );
  }
  const source = copySourceOf(tokens);
  if (source && isRebuildPair(head.table, source.table) && keyStaysPut(rule, head, source)) {
    return { kind: 'all-shards', reason: 'table rebuild: each shard copies its own rows', result: 'sum' };
  }
  if (rules.ruleOf(head.table)) return undefined;
  throw new UnsupportedShardingError(
    `INSERT … SELECT into "${head.table}" (the rebuild copy of ${rule.distribution} table "${rule.tableName}") must copy "${rule.tableName}" alone, column by column${rule.shardKey ? `, with "${rule.shardKey.columnName}" into itself` : ''}, so that each shard copies its own rows.`,
    { sql, stage: 'write' },
  );
}

/** A sharded table's rows stay on their shard when the key column is copied into itself. */
function keyStaysPut(rule: TableRule, head: InsertHead, source: CopySource): boolean {
  if (!rule.shardKey) return true;
  const key = rule.shardKey.columnName.toLowerCase();
  const at = head.columns?.findIndex((c) => c.toLowerCase() === key) ?? -1;
  return at >= 0 && source.items[at]?.toLowerCase() === key;
}

interface CopySource {
  readonly table: string;
  /** Each select item: the column it names when it is a bare column, else undefined. */
  readonly items: readonly (string | undefined)[];
}

/** `… SELECT a, b FROM t [WHERE …]` of one table without joins or subqueries. */
function copySourceOf(tokens: readonly StatementToken[]): CopySource | undefined {
  const select = tokens.findIndex((t) => t.depth === 0 && isKeyword(t, 'SELECT'));
  if (select < 0 || tokens.slice(select + 1).some((t) => isKeyword(t, 'SELECT') || isKeyword(t, 'JOIN'))) return undefined;
  const from = tokens.findIndex((t, i) => i > select && t.depth === 0 && isKeyword(t, 'FROM'));
  if (from < 0) return undefined;
  const items: (string | undefined)[] = [];
  let item: StatementToken[] = [];
  for (const t of [...tokens.slice(select + 1, from), undefined]) {
    if (t && !(t.kind === TokenKind.Comma && t.depth === 0)) {
      item.push(t);
      continue;
    }
    items.push(bareColumnOf(item));
    item = [];
  }
  let at = from + 1;
  if (tokens[at + 1]?.kind === TokenKind.Dot) at += 2;
  const table = tokens[at];
  if (!isIdentifier(table)) return undefined;
  const rest = tokens.slice(at + 1);
  const end = rest.findIndex((t) => t.kind === TokenKind.Semicolon);
  const tail = end < 0 ? rest : rest.slice(0, end);
  // Nothing but an optional WHERE: no second table, no alias list, no GROUP BY.
  if (tail.length > 0 && !isKeyword(tail[0], 'WHERE')) return undefined;
  return { table: table!.text, items };
}

/** `col`, `t.col`: the column name; anything else: undefined. */
function bareColumnOf(item: readonly StatementToken[]): string | undefined {
  if (item.length === 1 && isIdentifier(item[0])) return item[0]!.text;
  if (item.length === 3 && isIdentifier(item[0]) && item[1]!.kind === TokenKind.Dot && isIdentifier(item[2])) return item[2]!.text;
  return undefined;
}

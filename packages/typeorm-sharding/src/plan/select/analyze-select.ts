import { UnsupportedShardingError } from '../../errors/index.js';
import type { ShardingRules } from '../../rules/index.js';
import { repeatedRowsProblem } from './repeated-rows.js';
import type { SqlDialect } from '../../parameterize/index.js';
import { bindShardedTables, subqueryLocalityOf } from '../routing/binding.js';
import { windowProblem } from './window-locality.js';
import { keyConditionOf } from '../routing/key-condition.js';
import type { Plan, PrunableOr } from '../plan.js';
import { innerSelectProblem, limitOf } from './select-clauses.js';
import { planSelectMerge } from './select-merge.js';
import type { SelectNode, SqlNode } from '../nodes/sql-node.js';
import { aggregatesOf, allSelectsOf, someNode } from '../nodes/sql-tree.js';
import { tableRefsOf } from '../nodes/table-refs.js';

/** Plans a SELECT whose text names at least one sharded or broadcast table. */
export function analyzeSelect(ast: SelectNode, rules: ShardingRules, dialect: SqlDialect, sql: string): Plan {
  const refs = tableRefsOf(ast, rules);
  const sharded = refs.filter((r) => r.rule?.distribution === 'sharded');
  if (sharded.length === 0) return { kind: 'default-shard', reason: 'no sharded table' };
  const unsharded = refs.filter((r) => (r.rule?.distribution ?? 'unsharded') === 'unsharded');
  if (unsharded.length > 0) {
    const other = unsharded[0]!;
    const where = other.rule
      ? `unsharded table "${other.name}", which lives only on the default shard; such a join cannot be answered per shard. Query them separately, or make "${other.name}" @Broadcast().`
      : `table "${other.name}", which is no entity of this ShardedDataSource (such tables are taken to live on the default shard only); check its name, or declare it as an entity (@Broadcast() for a copy on every shard).`;
    throw new UnsupportedShardingError(`The query reads sharded table "${sharded[0]!.name}" together with ${where}`, { sql });
  }
  const primary = sharded[0]!;
  const tables = (r: (typeof sharded)[number]) => r.rule!.shardKey!.layout?.count ?? 1;
  const otherLayout = sharded.find((r) => tables(r) !== tables(primary));
  if (otherLayout) {
    throw new UnsupportedShardingError(
      `The query reads "${primary.name}" (${tables(primary)} table${tables(primary) > 1 ? 's' : ''} per shard) together with "${otherLayout.name}" (${tables(otherLayout)} table${tables(otherLayout) > 1 ? 's' : ''} per shard): ` +
        'rows of tables with different table layouts do not pair up table by table. Give co-located tables the same @Sharded({ tables }), or query them separately.',
      { sql },
    );
  }
  const { safe, refusedExists } = subqueryLocalityOf(ast, rules);
  const hidden = sharded.find((r) => !safe.has(r.home));
  const exists = hidden ? [...refusedExists].find(([query]) => allSelectsOf(query).includes(hidden.home)) : undefined;
  if (hidden && exists) {
    const [, op] = exists;
    throw new UnsupportedShardingError(
      `${op} (SELECT … FROM "${hidden.name}" …) is not correlated with the outer query on the shard key, so its answer depends on every shard at once, while each shard would evaluate it over its own rows only. ` +
        (op === 'EXISTS'
          ? 'Write it as (SELECT COUNT(*) FROM … WHERE …) > 0, a scalar subquery that runs first across the shards, or correlate it on the shard key (… WHERE inner.key = outer.key).'
          : 'Write it as (SELECT COUNT(*) FROM … WHERE …) = 0, a scalar subquery that runs first across the shards, as x NOT IN (SELECT …), or correlate it on the shard key (… WHERE inner.key = outer.key).'),
      { sql },
    );
  }
  if (hidden) {
    throw new UnsupportedShardingError(
      `Sharded table "${hidden.name}" is read in a subquery whose result depends on every shard at once (only FROM subqueries and EXISTS under AND are evaluated per shard). ` +
        'Uncorrelated `x IN (SELECT …)` and scalar `(SELECT …)` subqueries are run first across the shards: rewrite it as one of those (`NOT EXISTS (…)` as `x NOT IN (SELECT …)`), or as a join on the shard keys.',
      { sql },
    );
  }
  const keyAliases = bindShardedTables(ast, sharded, sql, rules);
  if (dialect === 'sqlite') refuseSqliteGroupNames(ast, sql);

  const home = primary.home;
  const homeTables = home.from;
  const isKey = (node: SqlNode): boolean => {
    if (node.kind !== 'column') return false;
    if (node.table === undefined) {
      const only = homeTables.length === 1 ? sharded.find((s) => s.home === home) : undefined;
      return only !== undefined && node.column.toLowerCase() === only.rule!.shardKey!.columnName.toLowerCase();
    }
    const key = keyAliases.get(node.table);
    return key !== undefined && key.toLowerCase() === node.column.toLowerCase();
  };
  const prunableLists: number[] = [];
  const prunableOrs: PrunableOr[] = [];
  const condition = keyConditionOf(home.where, isKey, prunableLists, prunableOrs);

  const merge = planSelectMerge({ select: ast, rules, dialect, keyAliases });
  const innerProblem = innerSelectProblem(ast) ?? innerWindowProblem(ast, rules) ?? repeatedRowsProblem(ast, rules);
  const unmergeable = merge.unmergeable ?? innerProblem;
  return {
    kind: 'select',
    table: primary.name,
    condition,
    prunableLists,
    ...(prunableOrs.length > 0 ? { prunableOrs } : {}),
    limit: limitOf(ast),
    pushLimit: merge.pushLimit,
    merge: unmergeable ? undefined : merge.merge,
    having: merge.having,
    computed: merge.computed,
    cutHaving: merge.cutHaving,
    shardHaving: merge.shardHaving,
    checkOriginal: merge.checkOriginal,
    unionSafe: merge.unionSafe,
    derivedColumns: merge.derivedColumns,
    extraGroupBy: merge.extraGroupBy,
    itemAliases: merge.itemAliases,
    exactIntegers: merge.exactIntegers,
    listedOrder: merge.listedOrder,
    tableReferences: namedByTablesText(ast) ? undefined : refs.length,
    // Any SELECT of the statement (a derived table, an inlined CTE) answers a row without rows.
    globalAggregate: allSelectsOf(ast).some((select) => select.groupBy.length === 0 && select.items.some((i) => aggregatesOf(i.expr).length > 0)),
    unmergeable,
  };
}

/** A window function of a subquery, derived table or CTE that each shard would compute over its own rows only. */
function innerWindowProblem(ast: SelectNode, rules: ShardingRules): string | undefined {
  for (const select of allSelectsOf(ast)) {
    if (select === ast) continue;
    const problem = windowProblem(select, rules);
    if (problem) return `${problem}, in a subquery over several shards`;
  }
  return undefined;
}

/** True when some select list (at any depth) has an unaliased item holding a subquery: its column is named by text that names tables. */
function namedByTablesText(ast: SelectNode): boolean {
  return allSelectsOf(ast).some((select) => select.items.some((item) => item.alias === undefined && someNode(item.expr, (n) => n.kind === 'subquery')));
}

/**
 * SQLite names the result columns of a select over a parenthesised join its own way (`l.qty`
 * comes back as `qty:1`), so the merge would not find an unaliased item's column: every item of
 * such a select must have an alias (TypeORM gives every item one).
 */
function refuseSqliteGroupNames(ast: SelectNode, sql: string): void {
  for (const select of allSelectsOf(ast)) {
    if (!select.from.some((f) => f.kind === 'table' && f.parenthesised)) continue;
    const unnamed = select.items.find((item) => item.alias === undefined);
    if (unnamed === undefined) continue;
    throw new UnsupportedShardingError(
      'On SQLite, a select over a parenthesised join (`JOIN (b JOIN c ON …) ON …`) names its unaliased columns otherwise (`l.qty` comes back as `qty:1`), so its rows could not be merged by name. Give every select item an alias.',
      { sql },
    );
  }
}

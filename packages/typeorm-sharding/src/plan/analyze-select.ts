import { UnsupportedShardingError } from '../errors/index.js';
import type { ShardingRules } from '../rules/index.js';
import { columnRefOf, fromItemsOf, type AstNode } from './ast.js';
import { bindShardedTables, safeSelectsOf } from './binding.js';
import { innerSelectProblem, limitOf } from './select-clauses.js';
import { shapeOf } from './shape-of.js';
import { keyConditionOf } from './key-condition.js';
import { mergeSpecOf } from './merge-spec-of.js';
import { repeatedRowsProblem } from './repeated-rows.js';
import type { Plan } from './plan.js';
import { tableRefsOf } from './table-refs.js';
import type { SqlDialect } from '../parameterize/index.js';


/** Plans a SELECT whose text names at least one sharded or broadcast table. */
export function analyzeSelect(ast: AstNode, rules: ShardingRules, dialect: SqlDialect, sql: string): Plan {
  const refs = tableRefsOf(ast, rules);
  const sharded = refs.filter((r) => r.rule?.distribution === 'sharded');
  if (sharded.length === 0) return { kind: 'default-shard', reason: 'no sharded table' };
  const unsharded = refs.filter((r) => (r.rule?.distribution ?? 'unsharded') === 'unsharded');
  if (unsharded.length > 0) {
    throw new UnsupportedShardingError(
      `The query reads sharded table "${sharded[0]!.name}" together with unsharded table "${unsharded[0]!.name}", which lives only on the default shard; such a join cannot be answered per shard. Query them separately, or make "${unsharded[0]!.name}" @Broadcast().`,
      { sql },
    );
  }
  const primary = sharded[0]!;
  const safe = safeSelectsOf(ast);
  const hidden = sharded.find((r) => !safe.has(r.home));
  if (hidden) {
    throw new UnsupportedShardingError(
      `Sharded table "${hidden.name}" is read in a subquery whose result depends on every shard at once (only FROM subqueries and EXISTS under AND are evaluated per shard).`,
      { sql },
    );
  }
  const keyAliases = bindShardedTables(ast, sharded, sql, rules);

  const home = primary.home;
  const homeTables = fromItemsOf(home);
  const isKey = (node: AstNode): boolean => {
    const ref = columnRefOf(node);
    if (!ref) return false;
    if (ref.table === undefined) {
      const only = homeTables.length === 1 ? sharded.find((s) => s.home === home) : undefined;
      return only !== undefined && ref.column.toLowerCase() === only.rule!.shardKey!.columnName.toLowerCase();
    }
    const key = keyAliases.get(ref.table);
    return key !== undefined && key.toLowerCase() === ref.column.toLowerCase();
  };
  const prunableLists: number[] = [];
  const condition = keyConditionOf(home.where, isKey, prunableLists);

  const { shape, derivedColumns, unmergeable } = shapeOf(ast, rules, dialect, keyAliases);
  const innerProblem = innerSelectProblem(ast) ?? repeatedRowsProblem(ast, rules);
  return {
    kind: 'select',
    table: primary.name,
    condition,
    prunableLists,
    limit: limitOf(ast),
    pushLimit: !((shape.groupBy.length > 0 || shape.distinct || shape.having) && !shape.groupsAreShardLocal),
    merge: unmergeable || innerProblem ? undefined : mergeSpecOf(shape, derivedColumns),
    having: shape.having,
    cutHaving: shape.having !== undefined,
    derivedColumns,
    tableReferences: refs.length,
    globalAggregate: !ast.groupby?.columns?.length && (Array.isArray(ast.columns) ? ast.columns : []).some((c: AstNode) => c?.expr?.type === 'aggr_func'),
    unmergeable: unmergeable ?? innerProblem,
  };
}

import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import { UnsupportedShardingError } from '../errors/index.js';
import type { ShardingRules } from '../rules/index.js';
import { columnRefOf, fromItemsOf, selectsOf, slotOf, textOf, type AstNode } from './ast.js';
import { keyConditionOf } from './key-condition.js';
import { mergeSpecOf } from './merge-spec-of.js';
import type { DerivedColumn, LimitPlan, Plan } from './plan.js';
import type { SelectShape } from './select-shape.js';
import type { AggregateSpec, SortKey } from '../merge/index.js';
import { compileHaving, type CompiledHaving } from './having.js';
import { aliasOfColumn, expressionText } from './expression-text.js';

type SortType = 'numeric' | 'string' | 'date' | 'auto';
import { tableRefsOf, type TableRef } from './table-refs.js';
import type { SqlDialect } from '../parameterize/index.js';

/** Alias prefix of columns the planner adds for the merge; they are stripped from results. */
export const DERIVED_PREFIX = '__shard_';

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
  const keyAliases = bindShardedTables(ast, sharded, sql);

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

  const { shape, derivedColumns, unmergeable } = shapeOf(ast, refs, rules, dialect, keyAliases);
  const innerProblem = innerSelectProblem(ast);
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
    unmergeable: unmergeable ?? innerProblem,
  };
}

/**
 * Every sharded table must be joined to the first one on equal shard keys (a binding join:
 * matching rows are then on the same shard). Returns alias → key column of the bound tables.
 */
function bindShardedTables(ast: AstNode, sharded: readonly TableRef[], sql: string): Map<string, string> {
  const keyOf = new Map<string, string>(sharded.map((s) => [s.alias, s.rule!.shardKey!.columnName]));
  const algorithmOf = (s: TableRef) => `${s.rule!.shardKey!.algorithm.name}/${s.rule!.shardKey!.kind}`;
  const bound = new Set<string>([sharded[0]!.alias]);
  if (sharded.length === 1) return keyOf;
  // Only equalities every result row satisfies count: conjuncts of ON and WHERE, not terms under OR/NOT.
  const equalities: [string, string][] = [];
  const consider = (n: AstNode): void => {
    if (n.type !== 'binary_expr' || n.operator !== '=') return;
    const l = columnRefOf(n.left);
    const r = columnRefOf(n.right);
    if (l?.table && r?.table && keyOf.get(l.table)?.toLowerCase() === l.column.toLowerCase() && keyOf.get(r.table)?.toLowerCase() === r.column.toLowerCase()) {
      equalities.push([l.table, r.table]);
    }
  };
  for (const select of selectsOf(ast)) {
    for (const item of fromItemsOf(select)) conjunctsOf(item.on).forEach(consider);
    conjunctsOf(select.where).forEach(consider);
  }
  for (let changed = true; changed; ) {
    changed = false;
    for (const [a, b] of equalities) {
      if (bound.has(a) !== bound.has(b)) {
        bound.add(a);
        bound.add(b);
        changed = true;
      }
    }
  }
  for (const s of sharded) {
    if (!bound.has(s.alias)) {
      throw new UnsupportedShardingError(
        `The query joins sharded tables "${sharded[0]!.name}" and "${s.name}" without equating their shard keys, so matching rows may be on different shards.`,
        { sql },
      );
    }
    if (algorithmOf(s) !== algorithmOf(sharded[0]!)) {
      throw new UnsupportedShardingError(
        `The query joins sharded tables "${sharded[0]!.name}" and "${s.name}" that use different sharding algorithms, so equal keys may be on different shards.`,
        { sql },
      );
    }
  }
  return keyOf;
}

function limitOf(ast: AstNode): LimitPlan | undefined {
  const limit = ast.limit;
  if (!limit || !Array.isArray(limit.value) || limit.value.length === 0) return undefined;
  const values = limit.value.map((v: AstNode) => slotOf(v));
  if (values.some((v: number | undefined) => v === undefined)) return undefined;
  if (values.length === 1) return { countSlot: values[0]!, offsetSlot: undefined };
  return limit.seperator === 'offset'
    ? { countSlot: values[0]!, offsetSlot: values[1]! }
    : { countSlot: values[1]!, offsetSlot: values[0]! };
}

/** Subqueries whose own LIMIT / grouping would need a global view to be right. */
function innerSelectProblem(ast: AstNode): string | undefined {
  let problem: string | undefined;
  const visit = (n: unknown, isRoot: boolean): void => {
    if (problem || n === null || typeof n !== 'object') return;
    const node = n as AstNode;
    if (!isRoot && node.type === 'select') {
      if (node.limit?.value?.length) problem = 'a subquery with LIMIT';
      else if (node.groupby?.columns?.length) problem = 'a subquery with GROUP BY';
      else if (node.distinct) problem = 'a subquery with DISTINCT';
      else if ((node.columns ?? []).some((c: AstNode) => c?.expr?.type === 'aggr_func')) problem = 'a subquery with aggregates';
    }
    for (const k in node) if (k !== 'loc' && k !== 'tableList' && k !== 'columnList') visit(node[k], false);
  };
  visit(ast, true);
  return problem ? `${problem} over several shards` : undefined;
}

interface ShapeResult {
  readonly shape: SelectShape;
  readonly derivedColumns: DerivedColumn[];
  readonly unmergeable: string | undefined;
}

/** Describes the outermost select in terms of result columns, adding derived columns where the merge needs them. */
function shapeOf(ast: AstNode, refs: readonly TableRef[], rules: ShardingRules, dialect: SqlDialect, keyAliases: ReadonlyMap<string, string>): ShapeResult {
  const columns: AstNode[] = Array.isArray(ast.columns) ? ast.columns : [];
  const hasStar = ast.columns === '*' || columns.some((c) => c?.expr?.type === 'column_ref' && textOf(c.expr.column) === '*');
  const derivedColumns: DerivedColumn[] = [];
  let unmergeable: string | undefined;
  const derive = (expression: string, kind: string): string => {
    const existing = derivedColumns.find((d) => d.expression === expression);
    if (existing) return existing.alias;
    const alias = `${DERIVED_PREFIX}${kind}_${derivedColumns.length}`;
    derivedColumns.push({ expression, alias });
    return alias;
  };

  /** The result alias holding `expr`, if the select list already has it. */
  const findAlias = (expr: AstNode): string | undefined => {
    const ref = columnRefOf(expr);
    const text = expressionText(expr);
    for (const c of columns) {
      const cref = columnRefOf(c.expr);
      if (ref && cref && cref.column === ref.column && (cref.table === ref.table || ref.table === undefined)) return aliasOfColumn(c);
      if (ref && ref.table === undefined && textOf(c.as) === ref.column) return textOf(c.as);
      if (!ref && text !== undefined && expressionText(c.expr) === text) return aliasOfColumn(c);
    }
    if (ref && hasStar) return ref.column;
    return undefined;
  };
  const sortTypeOf = (expr: AstNode): { type: SortType; ci: boolean } => {
    const col = resolveColumn(expr, ast, refs, rules);
    return col ? typeFamily(col, dialect) : { type: 'auto', ci: false };
  };

  const orderBy: SortKey[] = [];
  for (const item of (ast.orderby ?? []) as AstNode[]) {
    const direction = String(item.type ?? 'ASC').toUpperCase() === 'DESC' ? 'DESC' : 'ASC';
    const { type, ci } = sortTypeOf(item.expr);
    const text = expressionText(item.expr);
    if (type === 'string' && ci && text !== undefined) {
      // MySQL's _ci collations: sort by the server's own weights, exactly, not an imitation.
      orderBy.push({ column: derive(`WEIGHT_STRING(${text})`, 'weight'), direction, type: 'binary' });
      continue;
    }
    let alias = findAlias(item.expr);
    if (alias === undefined) {
      if (text === undefined || item.expr.type === 'aggr_func') {
        unmergeable ??= 'ORDER BY an expression that is not in the select list';
        continue;
      }
      alias = derive(text, 'sort');
    }
    orderBy.push({ column: alias, direction, type: type === 'string' ? 'string' : type, collation: ci ? 'case-insensitive' : 'binary' });
  }

  const aggregates: AggregateSpec[] = [];
  const aggregateAlias = new Map<string, string>();
  for (const c of columns) {
    const expr = c?.expr;
    if (expr?.type !== 'aggr_func') continue;
    const alias = textOf(c.as);
    const fn = String(expr.name).toUpperCase();
    const argText = expressionText(expr.args?.expr);
    if (!alias) {
      unmergeable ??= `${fn}() without an alias`;
      continue;
    }
    const text = expressionText(expr);
    if (text !== undefined) aggregateAlias.set(text, alias);
    if (fn === 'COUNT' && expr.args?.distinct) {
      // COUNT(DISTINCT key): each key value lives on one shard, so partial counts add up.
      if (!resolveKey(expr.args.expr, ast, refs, keyAliases)) unmergeable ??= 'COUNT(DISTINCT …) of a column other than the shard key';
      aggregates.push({ alias, fn: 'COUNT' });
    } else if (fn === 'COUNT' || fn === 'SUM') {
      aggregates.push({ alias, fn });
    } else if (fn === 'MIN' || fn === 'MAX') {
      const { type, ci } = expr.args?.expr ? sortTypeOf(expr.args.expr) : { type: 'auto' as const, ci: false };
      aggregates.push({ alias, fn, type, collation: ci ? 'case-insensitive' : 'binary' });
    } else if (fn === 'AVG' && argText !== undefined && !expr.args?.distinct) {
      aggregates.push({ alias, fn: 'AVG', sumAlias: derive(`SUM(${argText})`, 'avg_sum'), countAlias: derive(`COUNT(${argText})`, 'avg_count') });
    } else {
      unmergeable ??= `${fn}() over several shards`;
    }
  }

  const groupBy: { column: string; caseInsensitive: boolean }[] = [];
  for (const g of (ast.groupby?.columns ?? []) as AstNode[]) {
    const alias = findAlias(g);
    if (alias === undefined) unmergeable ??= 'GROUP BY a column that is not in the select list';
    else groupBy.push({ column: alias, caseInsensitive: sortTypeOf(g).ci });
  }
  const distinct = Boolean(ast.distinct);
  const groupCols = distinct ? columns.map((c) => c.expr) : ((ast.groupby?.columns ?? []) as AstNode[]);
  const groupsAreShardLocal = (groupBy.length > 0 || distinct) && groupCols.some((g) => resolveKey(g, ast, refs, keyAliases));

  let having: CompiledHaving | undefined;
  if (ast.having && !groupsAreShardLocal) {
    having = compileHaving(ast.having, (node) => {
      const text = expressionText(node);
      if (node.type === 'aggr_func') {
        if (text === undefined) return undefined;
        const known = aggregateAlias.get(text);
        if (known) return known;
        const fn = String(node.name).toUpperCase();
        if ((fn !== 'COUNT' && fn !== 'SUM' && fn !== 'MIN' && fn !== 'MAX') || node.args?.distinct) return undefined;
        const alias = derive(text, 'having');
        aggregates.push(fn === 'COUNT' || fn === 'SUM' ? { alias, fn } : { alias, fn, type: 'auto' });
        aggregateAlias.set(text, alias);
        return alias;
      }
      return findAlias(node);
    });
    if (!having) unmergeable ??= 'a HAVING condition the merge cannot evaluate';
  }

  return { shape: { orderBy, groupBy, aggregates, distinct, having, groupsAreShardLocal }, derivedColumns, unmergeable };
}

/** The entity column behind an expression of the select, following derived tables. */
function resolveColumn(expr: AstNode, select: AstNode, refs: readonly TableRef[], rules: ShardingRules): ColumnMetadata | undefined {
  const ref = columnRefOf(expr);
  if (!ref) return undefined;
  for (const item of fromItemsOf(select)) {
    const alias = item.as ?? item.table;
    if (ref.table !== undefined && alias !== ref.table) continue;
    if (typeof item.table === 'string') {
      const rule = rules.ruleOf(item.table);
      const col = rule?.metadata.columns.find((c) => c.databaseName === ref.column);
      if (col) return col;
    } else if (item.expr?.ast) {
      const inner = item.expr.ast as AstNode;
      for (const c of (inner.columns ?? []) as AstNode[]) {
        const name = textOf(c.as) ?? columnRefOf(c.expr)?.column;
        if (name === ref.column) return resolveColumn(c.expr, inner, refs, rules);
      }
    }
  }
  return undefined;
}

/** True when the expression is the shard key of a bound table (following derived tables). */
function resolveKey(expr: AstNode, select: AstNode, refs: readonly TableRef[], keyAliases: ReadonlyMap<string, string>): boolean {
  const ref = columnRefOf(expr);
  if (!ref) return false;
  for (const item of fromItemsOf(select)) {
    const alias = item.as ?? item.table;
    if (ref.table !== undefined && alias !== ref.table) continue;
    if (typeof item.table === 'string') {
      if (keyAliases.get(alias)?.toLowerCase() === ref.column.toLowerCase()) return true;
    } else if (item.expr?.ast) {
      const inner = item.expr.ast as AstNode;
      for (const c of (inner.columns ?? []) as AstNode[]) {
        const name = textOf(c.as) ?? columnRefOf(c.expr)?.column;
        if (name === ref.column && resolveKey(c.expr, inner, refs, keyAliases)) return true;
      }
    }
  }
  return false;
}

const NUMERIC = /^(tinyint|smallint|mediumint|int|integer|bigint|decimal|numeric|float|double|real|dec|int2|int4|int8|double precision|year|bit)$/;
const DATES = /^(date|datetime|timestamp|time)$/;

function typeFamily(column: ColumnMetadata, dialect: SqlDialect): { type: SortType; ci: boolean } {
  const raw = column.type;
  const t = (typeof raw === 'string' ? raw : raw === Number ? 'int' : raw === Date ? 'datetime' : raw === String ? 'varchar' : raw === Boolean ? 'tinyint' : '').toLowerCase();
  if (NUMERIC.test(t)) return { type: 'numeric', ci: false };
  if (DATES.test(t)) return { type: 'date', ci: false };
  if (t === '') return { type: 'auto', ci: false };
  // MySQL/MariaDB default collations (utf8mb4_general_ci, utf8mb4_unicode_ci, …) compare case-insensitively.
  const collation = column.collation ?? '';
  const ci = dialect === 'mysql' && !/_bin$|binary/i.test(collation);
  return { type: 'string', ci };
}

/** The terms of a condition joined by AND at its top (a term under OR or NOT is not one). */
function conjunctsOf(node: AstNode | null | undefined): AstNode[] {
  if (!node) return [];
  if (node.type === 'binary_expr' && String(node.operator).toUpperCase() === 'AND') return [...conjunctsOf(node.left), ...conjunctsOf(node.right)];
  return [node];
}

/**
 * The selects whose rows can be computed shard by shard: the statement itself, its FROM
 * subqueries, and `EXISTS (…)` terms under AND (true on one shard = true overall). A sharded
 * table anywhere else — `NOT EXISTS`, `x IN (SELECT …)`, a scalar subquery — would need every
 * shard's rows at once.
 */
function safeSelectsOf(root: AstNode): Set<AstNode> {
  const safe = new Set<AstNode>();
  const visit = (select: AstNode): void => {
    safe.add(select);
    for (const item of fromItemsOf(select)) if (item.expr?.ast?.type === 'select') visit(item.expr.ast);
    for (const term of conjunctsOf(select.where)) {
      const name = textOf(term.name?.name?.[0]) ?? textOf(term.name);
      if (term.type === 'function' && String(name).toUpperCase() === 'EXISTS') {
        const sub = term.args?.value?.[0]?.ast;
        if (sub?.type === 'select') visit(sub);
      }
    }
  };
  visit(root);
  return safe;
}

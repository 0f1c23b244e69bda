/**
 * Which subqueries of a statement run first, on their own (Vitess's pulled-out subquery):
 * an uncorrelated `x [NOT] IN (SELECT …)` or scalar `(SELECT …)` whose rows are spread over
 * shards has one answer for the whole statement, which no single shard can compute. It is
 * run as a logical statement (routed, merged exactly), and its values replace it in the text.
 *
 * A subquery over sharded tables that cannot be run first is refused here with the reason
 * and the fix: a correlated one (it refers to a column of the outer query), `ANY`/`ALL`,
 * more than one column, or values that could not be written back exactly.
 */
import { UnsupportedShardingError } from '../../errors/index.js';
import { parameterize, type ParameterizedSql, type SqlDialect } from '../../parameterize/index.js';
import type { ShardingRules } from '../../rules/index.js';
import { parseStatement, UnsupportedConstructError } from '../nodes/from-parser.js';
import type { PulledSubqueriesPlan, PulledSubquery } from '../plan.js';
import { valueBindingOf } from './pulled-binding.js';
import type { DeleteNode, SelectNode, SqlNode, UpdateNode } from '../nodes/sql-node.js';
import { allSelectsOf } from '../nodes/sql-tree.js';
import { outerReferenceOf } from './subquery-scope.js';
import { subquerySitesOf, writeScopeOf, type SubquerySite } from './subquery-sites.js';
import { subquerySpansOf, type SubquerySpan } from './subquery-spans.js';
import { mentionsDistributedTable, tableRefsOf } from '../nodes/table-refs.js';
import { insertHeadOf } from '../write/insert-head.js';

/**
 * The plan of a statement whose subqueries must run first, or undefined when none must (the
 * statement is then planned as it is). Throws `UnsupportedShardingError` for a subquery over
 * sharded tables that would be answered per shard but cannot be run first.
 */
export function pulledSubqueryPlan(statement: SelectNode | UpdateNode | DeleteNode, p: ParameterizedSql, rules: ShardingRules, dialect: SqlDialect): PulledSubqueriesPlan | undefined {
  const root = statement.kind === 'select' ? statement : writeScopeOf(statement);
  // A CTE's SELECTs sit before the statement in the text: they cannot be matched with the subqueries' spans.
  if (allSelectsOf(root).some((s) => s.with !== undefined)) return undefined;
  const sites = subquerySitesOf(statement);
  if (sites.length === 0) return undefined;
  const sql = p.sql;
  const distribution = (q: SelectNode) => new Set(tableRefsOf(q, rules).map((r) => r.rule?.distribution ?? 'unsharded'));
  const inside = (site: SubquerySite, chosen: ReadonlySet<SubquerySite>) => {
    for (let s = site.parent; s; s = s.parent) if (chosen.has(s)) return true;
    return false;
  };
  const candidate = (site: SubquerySite) => site.use === 'in' || site.use === 'scalar' || site.use === 'exists';
  // EXISTS is the SELECT planner's when it is correlated (shard-local on the shard key) or when
  // nothing outside it reads a sharded table (TypeORM's exists(): routed by the EXISTS's own WHERE);
  // an uncorrelated one beside sharded tables runs first (each shard would answer it for its own rows).
  const leftToSelect = (site: SubquerySite) =>
    site.use === 'exists' && (outerReferenceOf(site.query, rules, dialect) !== undefined || !outsideOf(root, new Set([site]), rules).has('sharded'));
  const problemOf = (site: SubquerySite) => (site.use === 'exists' ? existsProblem(site.query, site.inUnaliasedItem) : pullProblem(site.query, site.inUnaliasedItem, rules, dialect));

  // 1. Subqueries over sharded tables, outermost first.
  const chosen = new Set<SubquerySite>();
  const refusals = new Map<SubquerySite, string>();
  for (const site of sites) {
    if (!candidate(site) || inside(site, chosen) || !distribution(site.query).has('sharded') || leftToSelect(site)) continue;
    const problem = problemOf(site);
    if (problem) refusals.set(site, problem);
    else chosen.add(site);
  }
  // 2. Subqueries over unsharded tables (they live on the default shard) in a statement that
  //    runs elsewhere too: it reads sharded tables besides them, or writes a distributed table.
  const runsElsewhere = statement.kind !== 'select'
    ? distributedTarget(statement, rules)
    : outsideOf(root, chosen, rules).has('sharded');
  if (runsElsewhere) {
    for (const site of sites) {
      if (!candidate(site) || inside(site, chosen) || !distribution(site.query).has('unsharded') || leftToSelect(site)) continue;
      if (!problemOf(site)) chosen.add(site);
    }
  }
  // 3. What still reads sharded tables in a subquery would be answered per shard: refuse it now,
  //    naming why it could not run first (for a SELECT, EXISTS and derived tables are the SELECT
  //    planner's to judge).
  for (const site of sites) {
    if (inside(site, chosen) || chosen.has(site) || !readsShardedOutside(site, chosen, rules)) continue;
    const quantified = site.use === 'quantified' ? 'ANY / ALL / SOME subqueries are not run first (write `x IN (SELECT …)`, or compare with a MIN / MAX subquery)' : undefined;
    const why = refusals.get(site) ?? quantified ?? (statement.kind === 'select' ? undefined : site.use === 'derived' ? 'it is a derived table of a write' : `it is ${site.use === 'exists' ? 'an EXISTS' : 'a'} subquery of a write, evaluated on each shard with that shard's rows only`);
    if (why === undefined) continue;
    throw new UnsupportedShardingError(
      `A subquery over sharded table "${shardedTableOf(site, rules)}" cannot be answered: ${why}. ` +
        'Uncorrelated `x IN (SELECT …)` and scalar `(SELECT …)` subqueries of one column are run first across the shards; rewrite it as one (or as a join on the shard keys), or run it yourself and pass its values.',
      { sql },
    );
  }
  if (chosen.size === 0) return undefined;

  const spans = subquerySpansOf(p, dialect);
  if (spans.length !== sites.length) {
    throw new UnsupportedShardingError(
      `The statement's subqueries over sharded tables could not be located in its text (${spans.length} parenthesised SELECTs found, ${sites.length} parsed); write each subquery as \`(SELECT …)\`.`,
      { sql },
    );
  }
  const subqueries: PulledSubquery[] = [];
  for (const site of sites) {
    if (!chosen.has(site)) continue;
    const span = spans[site.ordinal]!;
    if (!sameSubquery(site.query, span, p, dialect)) {
      throw new UnsupportedShardingError('A subquery over sharded tables could not be matched with its text; write it as a plain `(SELECT …)`.', { sql });
    }
    // EXISTS needs only whether a row came back: no value is written into the statement.
    if (site.use === 'exists') {
      subqueries.push({ ordinal: site.ordinal, use: 'exists', ordered: false, binding: { dialect: 'sqlite' } });
      continue;
    }
    // `x IN ((SELECT …))` is a list holding one scalar subquery, not an IN subquery.
    const list = site.use === 'in' && span.afterIn;
    const binding = valueBindingOf(
      { item: site.query.items[0]!.expr, query: site.query, partners: site.partners, scope: site.scope, inListItem: site.inListItem || (site.use === 'in' && !list), stored: site.stored },
      rules,
      dialect,
    );
    if (typeof binding === 'string') {
      throw new UnsupportedShardingError(`The subquery over "${shardedTableOf(site, rules) ?? 'its tables'}" runs first across the shards, but its values cannot be put back into the statement exactly: ${binding}.`, { sql });
    }
    subqueries.push({ ordinal: site.ordinal, use: list ? 'list' : 'scalar', ordered: site.query.orderBy.length > 0, binding });
  }
  const outside = outsideOf(root, chosen, rules);
  const reach = outside.has('sharded') || (statement.kind !== 'select' && distributedTarget(statement, rules)) ? 'every-shard' : 'default-shard';
  return { kind: 'pulled', subqueries, reach };
}

/**
 * The subqueries of `INSERT … VALUES` (and of its ON DUPLICATE KEY UPDATE part): a row of
 * VALUES is inserted on one shard, where a subquery would only see that shard's rows. They
 * cannot refer to an outer query, so each runs first (also one over unsharded tables when the
 * rows go to other shards than the default one). `INSERT … SELECT` is left to `analyzeInsert`.
 */
export function pulledInsertPlan(p: ParameterizedSql, rules: ShardingRules, dialect: SqlDialect): PulledSubqueriesPlan | undefined {
  const head = insertHeadOf(p.sql, dialect);
  if (head.fromSelect) return undefined;
  const spans = subquerySpansOf(p, dialect);
  const distributedTarget = rules.distributionOf(head.table) !== 'unsharded';
  const subqueries: PulledSubquery[] = [];
  let covered = -1;
  for (const [ordinal, span] of spans.entries()) {
    if (span.open < covered) continue;
    const text = p.sql.slice(span.open + 1, span.close);
    let query;
    try {
      query = parseStatement(parameterize(text, p.parameters.slice(span.firstParameter, span.endParameter), dialect).parserSql);
    } catch (cause) {
      if (!mentionsDistributedTable(text, dialect, rules)) continue;
      // The parser's own message lists its grammar's tokens; the user is told what to change instead.
      const why = cause instanceof UnsupportedConstructError ? `typeorm-sharding does not plan ${cause.construct}` : 'its SQL parser cannot read it';
      throw new UnsupportedShardingError(`A subquery of this INSERT over sharded or broadcast tables cannot be analysed (${why}); rephrase it, or select its rows first and insert them.`, { sql: p.sql, cause });
    }
    if (query?.kind !== 'select') continue;
    const tables = new Set(tableRefsOf(query, rules).map((r) => r.rule?.distribution ?? 'unsharded'));
    if (!tables.has('sharded') && !(tables.has('unsharded') && distributedTarget)) continue;
    const why = allSelectsOf(query).some((s) => s.with !== undefined) ? 'it has WITH' : pullProblem(query, false, rules, dialect);
    const binding = why ?? valueBindingOf({ item: query.items[0]!.expr, query, partners: undefined, scope: query, inListItem: false, stored: span.wholeItem }, rules, dialect);
    if (typeof binding === 'string') {
      throw new UnsupportedShardingError(
        `A subquery in this INSERT over "${tableRefsOf(query, rules).find((r) => r.rule)?.name ?? 'its tables'}" would see only the rows of the shard the row goes to; it runs first across the shards, but ${binding}.`,
        { sql: p.sql },
      );
    }
    subqueries.push({ ordinal, use: 'scalar', ordered: query.orderBy.length > 0, binding });
    covered = span.close;
  }
  if (subqueries.length === 0) return undefined;
  return { kind: 'pulled', subqueries, reach: distributedTarget ? 'every-shard' : 'default-shard' };
}

/** Why a subquery cannot run first, or undefined when it can. */
/** Why an uncorrelated EXISTS cannot run first, or undefined. */
function existsProblem(query: SelectNode, inUnaliasedItem: boolean): string | undefined {
  if (query.compound) return 'it is a UNION';
  if (inUnaliasedItem) return 'it sits in a select item without an alias, whose result column is named after the subquery\'s text; give the item an alias with AS';
  return undefined;
}

function pullProblem(query: SelectNode, inUnaliasedItem: boolean, rules: ShardingRules, dialect: SqlDialect): string | undefined {
  if (query.compound) return 'it is a UNION';
  if (query.items.length !== 1 || query.items[0]!.expr.kind === 'star') return 'it selects more than one column (or *); select exactly one';
  if (inUnaliasedItem) return 'it sits in a select item without an alias, whose result column is named after the subquery\'s text; give the item an alias with AS';
  const outer = outerReferenceOf(query, rules, dialect);
  if (outer) {
    const name = outer.kind === 'star' ? `${outer.table}.*` : outer.table === undefined ? outer.column : `${outer.table}.${outer.column}`;
    return `it is correlated: it refers to "${name}", a column of the outer query (or one no table of the subquery is known to have: qualify it), so its answer differs from row to row`;
  }
  return undefined;
}

/** The distributions of the tables a statement reads outside the chosen subqueries. */
function outsideOf(root: SelectNode, chosen: ReadonlySet<SubquerySite>, rules: ShardingRules): Set<string> {
  const excluded = new Set<SelectNode>([...chosen].flatMap((s) => allSelectsOf(s.query)));
  return new Set(tableRefsOf(root, rules).filter((r) => !excluded.has(r.home)).map((r) => r.rule?.distribution ?? 'unsharded'));
}

/** An UPDATE / DELETE of a sharded or broadcast table: it runs on other shards than the default one. */
function distributedTarget(statement: UpdateNode | DeleteNode, rules: ShardingRules): boolean {
  return writeScopeOf(statement).from.some((t) => t.kind === 'table' && rules.distributionOf(t.table) !== 'unsharded');
}

/** The site reads a sharded table that is not inside one of the chosen subqueries. */
function readsShardedOutside(site: SubquerySite, chosen: ReadonlySet<SubquerySite>, rules: ShardingRules): boolean {
  const excluded = new Set<SelectNode>([...chosen].flatMap((s) => allSelectsOf(s.query)));
  return tableRefsOf(site.query, rules).some((r) => r.rule?.distribution === 'sharded' && !excluded.has(r.home));
}

function shardedTableOf(site: SubquerySite, rules: ShardingRules): string | undefined {
  return tableRefsOf(site.query, rules).find((r) => r.rule?.distribution === 'sharded')?.name;
}

/**
 * True when the text of `span`, parsed on its own, is `query`: the tree's n-th parenthesised
 * SELECT is the text's n-th. Slots and IN lists are numbered from the subquery's start.
 */
function sameSubquery(query: SelectNode, span: SubquerySpan, p: ParameterizedSql, dialect: SqlDialect): boolean {
  const text = p.sql.slice(span.open + 1, span.close);
  let parsed;
  try {
    parsed = parseStatement(parameterize(text, p.parameters.slice(span.firstParameter, span.endParameter), dialect).parserSql);
  } catch {
    return false;
  }
  const slotBase = p.slots.filter((s) => s.start < span.open).length;
  const listBase = p.inLists.filter((l) => l.open < span.open).length;
  const renumbered = JSON.stringify(query, (_key, value: unknown) => {
    const node = value as SqlNode | undefined;
    if (node?.kind === 'slot') return { ...node, slot: node.slot - slotBase };
    if (node?.kind === 'in-list') return { ...node, list: node.list - listBase };
    return value;
  });
  return JSON.stringify(parsed) === renumbered;
}

/**
 * The merge of a compound SELECT: the rows each SELECT returned (already merged across its
 * shards) combined by the set operators, ordered by the compound's ORDER BY, paged by its
 * LIMIT, and named as the first SELECT names its columns.
 */
import { ShardingInternalError } from '../errors/index.js';
import { canonicalRowKey, combineBranches, createRowComparator, type GroupKey, type Row, type SortKey } from '../merge/index.js';
import type { Collation } from '../values/index.js';
import type { ParameterizedSql, SqlDialect } from '../parameterize/index.js';
import type { ResolvedColumn } from '../plan/compound/compound-columns.js';
import type { CompoundPlan } from '../plan/compound/compound-plan.js';
import { pageOf, paginationOf } from '../plan/select/pagination.js';

/** Alias of the comparison key of result column i in a branch's physical statements. */
export const KEY_PREFIX = '__shard_union_key_';

/** What the combination needs to know of each result column. */
export interface CombineColumns {
  readonly columns: readonly ResolvedColumn[];
  /** Column i is compared by the key the branches select next to it. */
  readonly keyed: readonly boolean[];
  /** The result names (the first SELECT's). */
  readonly names: readonly string[];
}

/** A branch's row by position: `c<i>` the value of column i, `k<i>` its comparison key. */
export function positional(row: Row, names: readonly string[], keyed: readonly boolean[]): Row {
  const out: Row = {};
  names.forEach((name, i) => {
    if (!(name in row)) throw new ShardingInternalError(`column ${JSON.stringify(name)} is missing from a compound branch's rows`, { stage: 'merge' });
    out[`c${i}`] = row[name];
    if (keyed[i]) out[`k${i}`] = row[`${KEY_PREFIX}${i}`];
  });
  return out;
}

/** The branches' rows combined, ordered, paged and named as the database returns the compound. */
export function combineCompound(plan: CompoundPlan, p: ParameterizedSql, work: CombineColumns, branches: readonly Row[][], dialect: SqlDialect): Row[] {
  const { columns, keyed, names } = work;
  const column = (i: number) => (keyed[i] ? `k${i}` : `c${i}`);
  // SQLite compares under the first collation among the branches combined so far; MySQL's are checked to agree.
  const collationAt = (i: number, lastBranch: number): Collation | undefined =>
    dialect === 'sqlite' ? (columns[i]!.comparison?.collations.slice(0, lastBranch + 1).find((c) => c !== undefined) ?? 'binary') : undefined;
  const keysAt = (operator: number): GroupKey[] => columns.map((_, i) => ({ column: column(i), collation: collationAt(i, operator + 1) ?? 'binary' }));
  const combined = combineBranches(branches, plan.operators, dialect === 'mysql' ? 'intersect-first' : 'left-to-right', (operator) => {
    const keys = keysAt(operator);
    return (row) => canonicalRowKey(row, keys);
  });
  if (plan.orderBy.length > 0) {
    const sortKeys: SortKey[] = plan.orderBy.map(({ position, direction }) => ({
      column: column(position),
      direction,
      type: columns[position]!.comparison!.type,
      ...(dialect === 'sqlite' ? { collation: collationAt(position, plan.branches.length - 1)! } : {}),
    }));
    combined.sort(createRowComparator(sortKeys));
  }
  return pageOf(combined, paginationOf(plan.limit, false, p)).map((row) => {
    const out: Row = {};
    names.forEach((name, i) => (out[name] = row[`c${i}`]));
    return out;
  });
}



/**
 * The one owner of a statement's OFFSET / LIMIT across shards (Vitess's `Limit`,
 * ShardingSphere's `PaginationContext`). Read once per statement from the plan's LIMIT slots
 * and the statement's values, it answers every question the stages ask about the page:
 * - rewrite: the row count each shard is sent (`LIMIT offset+count` from row 0, never
 *   `LIMIT offset, count`: the Atlas empty-page bug), capped at the dialect's largest count;
 * - coalescing: the rows one input (a shard, or a server's UNION ALL) can contribute;
 * - the merge: the rows it skips and keeps after merging;
 * - execution: whether the page is deep enough to be streamed.
 */
import type { ParameterizedSql, SqlDialect } from '../../parameterize/index.js';
import type { LimitPlan } from '../plan.js';

/** A statement's page once its values are known. */
export interface Pagination {
  /** Rows skipped after merging. */
  readonly offset: bigint;
  /** Rows kept after the offset; undefined for all of them (SQLite's `LIMIT -1`). */
  readonly count: bigint | undefined;
  /**
   * The shards may apply the LIMIT themselves. False when groups (GROUP BY, DISTINCT) may
   * span shards: every shard must then send every group, and only the merge pages.
   */
  readonly pushed: boolean;
}

/** Largest row count each dialect accepts as "no limit". */
const NO_LIMIT: Record<SqlDialect, string> = { mysql: '18446744073709551615', sqlite: '-1' };
/** Largest row count each dialect accepts as a number. */
const MAX_LIMIT: Record<SqlDialect, bigint> = { mysql: 18446744073709551615n, sqlite: 9223372036854775807n };
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** The page of `p` planned with `limit` (undefined when the statement has no LIMIT). */
export function paginationOf(limit: LimitPlan | undefined, pushed: boolean, p: Pick<ParameterizedSql, 'slots'>): Pagination | undefined {
  if (!limit) return undefined;
  const { count, offset } = limitValuesOf(limit, p);
  // SQLite's `LIMIT -1` (TypeORM's skip without take) is "no limit", and a negative OFFSET is
  // no offset. MySQL rejects both as syntax errors: `hasNegativeLimit` tells the planner to let
  // the server say so.
  return { offset: offset < 0n ? 0n : offset, count: count < 0n ? undefined : count, pushed };
}

/**
 * True when the LIMIT or OFFSET of `p` is a negative number (`find({ skip: -5 })`, raw `OFFSET
 * -3`): SQLite reads them as no limit / no offset, MySQL rejects the statement.
 */
export function hasNegativeLimit(limit: LimitPlan | undefined, p: Pick<ParameterizedSql, 'slots'>): boolean {
  if (!limit) return false;
  const { count, offset } = limitValuesOf(limit, p);
  return count < 0n || offset < 0n;
}

function limitValuesOf(limit: LimitPlan, p: Pick<ParameterizedSql, 'slots'>): { count: bigint; offset: bigint } {
  const count = BigInt(String(p.slots[limit.countSlot]!.value));
  const offset = limit.offsetSlot === undefined ? 0n : BigInt(String(p.slots[limit.offsetSlot]!.value));
  return { count, offset };
}

/** Rows each input must send from its first row for the merge to cut the page; undefined: all of them. */
export function rowsPerInput(page: Pagination): bigint | undefined {
  return page.pushed && page.count !== undefined ? page.offset + page.count : undefined;
}

/** The row count written into each shard's LIMIT (its OFFSET becomes 0): offset + count, or the dialect's "no limit". */
export function shardRowCount(page: Pagination, dialect: SqlDialect): string {
  const rows = rowsPerInput(page);
  // offset + count may pass the dialect's largest count (MySQL's 2^64 - 1 idiom): no limit then.
  return rows === undefined || rows > MAX_LIMIT[dialect] ? NO_LIMIT[dialect] : rows.toString();
}

/**
 * The page the merge cuts, in JS numbers. A count or offset beyond 2^53 is no row count a
 * result can reach: it is kept at 2^53 − 1, which leaves the same rows.
 */
export function mergeLimitOf(page: Pagination): { readonly offset: number; readonly count?: number } {
  const offset = Number(page.offset > MAX_SAFE ? MAX_SAFE : page.offset);
  if (page.count === undefined) return { offset };
  return { offset, count: Number(page.count > MAX_SAFE ? MAX_SAFE : page.count) };
}

/** The rows of `rows` the page keeps (a merge done in memory). */
export function pageOf<T>(rows: readonly T[], page: Pagination | undefined): T[] {
  if (!page) return [...rows];
  const { offset, count } = mergeLimitOf(page);
  return rows.slice(offset, count === undefined ? undefined : offset + count);
}

/** True when the merge reads more than `threshold` rows before the page is complete (a deep page). */
export function isDeepPage(page: Pagination | undefined, threshold: number): boolean {
  if (!page) return false;
  return page.count === undefined || page.offset + page.count > BigInt(threshold);
}

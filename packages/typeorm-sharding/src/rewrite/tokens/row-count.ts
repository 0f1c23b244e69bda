import { ShardingInternalError } from '../../errors/index.js';
import type { ParameterizedSql, SqlDialect, ValueSlot } from '../../parameterize/index.js';
import { shardRowCount, type Pagination } from '../../plan/select/pagination.js';
import type { LimitPlan } from '../../plan/plan.js';
import type { SqlToken } from '../sql-token.js';

/**
 * The LIMIT of a statement that runs on several shards: each shard is sent `LIMIT offset+count`
 * from row 0 (the row count `pagination.ts` decides), so the merge can cut the page.
 */
export function rowCountTokens(p: ParameterizedSql, limit: LimitPlan, page: Pagination, dialect: SqlDialect): SqlToken[] {
  const tokens = [slotToken(p.slots[limit.countSlot]!, shardRowCount(page, dialect))];
  if (limit.offsetSlot !== undefined) tokens.push(slotToken(p.slots[limit.offsetSlot]!, '0'));
  return tokens;
}

/**
 * The LIMIT of one input of a page read by windows (`plan/select/page-window.ts`): `rows` rows
 * from position `start`, the same for every input.
 */
export function windowTokens(p: ParameterizedSql, limit: LimitPlan, window: { readonly start: number; readonly rows: number }): SqlToken[] {
  const count = slotToken(p.slots[limit.countSlot]!, String(window.rows));
  if (limit.offsetSlot !== undefined) return [count, slotToken(p.slots[limit.offsetSlot]!, String(window.start))];
  // A window from row 0 (a capped shallow page) needs no OFFSET.
  if (window.start === 0) return [count];
  throw new ShardingInternalError('a page window for a LIMIT without an OFFSET', { stage: 'rewrite', sql: p.sql });
}

/** A LIMIT slot set to `value`: literal text is replaced, a `?` gets a new parameter value. */
function slotToken(slot: ValueSlot, value: string): SqlToken {
  if (slot.paramIndex === undefined) return { start: slot.start, end: slot.end, text: value };
  // A count beyond 2^53 (MySQL's 2^64 - 1 "no limit") as a bigint: the drivers write it as a number, never quoted.
  return { start: slot.start, end: slot.end, text: '?', values: [Number.isSafeInteger(Number(value)) ? Number(value) : BigInt(value)] };
}

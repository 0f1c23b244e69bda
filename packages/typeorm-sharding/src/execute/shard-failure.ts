import { ShardingError, ShardQueryError, type ShardQueryFacts } from '../errors/index.js';

/**
 * The error to raise for a failure on a shard: errors the plugin already typed pass through;
 * anything else — the `QueryFailedError` of a shard's TypeORM runner, or a raw driver error —
 * becomes a `ShardQueryError` (a `QueryFailedError` with the driver's fields, plus the shard).
 */
export function shardFailure(cause: unknown, facts: ShardQueryFacts): Error {
  if (cause instanceof ShardingError) return cause as Error;
  return new ShardQueryError(cause, facts);
}

import { ShardingError, UnsupportedShardingError, type ShardingErrorDetails } from '../errors/index.js';

/**
 * A value returned by a shard cannot be compared, combined or computed as the plan said it
 * would be, e.g. a non-numeric string under a `numeric` sort key. Raised instead of guessing.
 */
export class MergeValueError extends ShardingError {
  readonly code = 'SHARDING_MERGE_VALUE';
  constructor(message: string, details: Partial<ShardingErrorDetails> = {}) {
    super(message, { stage: 'merge', ...details });
  }
}

/** Short printable form of a value for error messages. */
export function showValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value instanceof Date) return `Date(${Number.isNaN(value.getTime()) ? 'invalid' : value.toISOString()})`;
  if (value instanceof Uint8Array) return `<${value.length} bytes>`;
  return String(value);
}

/**
 * Two values the merge's evaluator has no comparison for (a date and text, say, in a HAVING
 * over merged groups): the database converts one to the other by rules the merge does not
 * reproduce, so the statement is refused, naming the fix.
 */
export function uncomparable(x: unknown, y: unknown): UnsupportedShardingError {
  return new UnsupportedShardingError(
    `An expression evaluated over the merged rows (HAVING, or an expression around aggregates) compares ${showValue(x)} with ${showValue(y)}: the database converts one to the other by its own rules, which the merge does not reproduce. CAST one side to the other's type.`,
    { stage: 'merge' },
  );
}

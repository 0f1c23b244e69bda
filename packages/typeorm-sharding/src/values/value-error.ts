import { ShardingError, type ShardingErrorDetails } from '../errors/index.js';

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

import { ShardingInternalError } from '../errors/index.js';

export { MergeValueError, showValue } from '../values/value-error.js';

/** A merge spec or operator argument that the plan stage should never have produced. */
export function invalidMergeSpec(message: string): ShardingInternalError {
  return new ShardingInternalError(`invalid merge spec: ${message}`, { stage: 'merge' });
}

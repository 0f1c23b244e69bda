import { ShardingConfigError } from '../errors/index.js';

/**
 * The type family of a shard-key column, which decides how its values are canonicalised.
 *
 * - `integer`: `tinyint`, `smallint`, `mediumint`, `int`, `integer`, `bigint` columns
 *   (signed or unsigned). Values are compared as numbers, so `5`, `'5'`, `5n` and `'005'`
 *   are one key.
 * - `string`: `char`, `varchar`, `text`, `uuid` (and binary) columns. Values are compared
 *   byte for byte, so `'abc'` and `'ABC'` are two keys.
 */
export type KeyKind = 'integer' | 'string';

/** Every {@link KeyKind}, for validating configuration read from untyped sources. */
export const KEY_KINDS: readonly KeyKind[] = ['integer', 'string'];

/** Throws {@link ShardingConfigError} unless `kind` is one of {@link KEY_KINDS}. */
export function checkKeyKind(kind: unknown): asserts kind is KeyKind {
  if (!KEY_KINDS.includes(kind as KeyKind)) {
    throw new ShardingConfigError(`Unknown shard key kind ${JSON.stringify(kind)}; expected one of ${KEY_KINDS.join(', ')}`);
  }
}

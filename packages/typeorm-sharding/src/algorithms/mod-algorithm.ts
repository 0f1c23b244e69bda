import { ShardingConfigError } from '../errors/index.js';
import { canonicalKeyString } from './canonical-key.js';
import type { KeyKind } from './key-kind.js';
import { checkShardCount } from './shard-names.js';
import type { ShardingAlgorithm } from './sharding-algorithm.js';

// Decimal texts this short (sign included) are below 2^53, so a JS number holds them exactly.
const MAX_EXACT_TEXT_LENGTH = 15;

/**
 * Integer modulo: the shard index of key `k` is `k mod shardCount`. With 4 shards the
 * keys 1, 2, 4, 5, 9 go to shards 1, 2, 0, 1, 1.
 *
 * Keys are integers in any spelling `canonicalKey` accepts for an integer column
 * (safe-integer numbers, bigints, decimal strings); keys beyond 2^53 are computed exactly
 * with BigInt. Negative keys use the floored modulo, `((k % n) + n) % n`, so every key
 * lands in `[0, n)`: `-1` goes to shard `n − 1`. (MySQL's `MOD(-1, 4)` is `-1`; the
 * in-database equivalent is `MOD(MOD(id, 4) + 4, 4)`.)
 *
 * Mod is simple and predictable, but changing the shard count moves almost every row;
 * prefer the hash algorithm, whose bucket map can grow.
 *
 * Throws `ShardingConfigError` if `shardCount` is not an integer from 1 to 65535 or if
 * `keyKind` is `'string'` (mod needs integer keys). `shardIndexOf` throws
 * `InvalidShardKeyError` for a value that is not an integer key.
 */
export function createModAlgorithm(shardCount: number, keyKind: KeyKind = 'integer'): ShardingAlgorithm {
  checkShardCount(shardCount);
  if (keyKind !== 'integer') {
    throw new ShardingConfigError(
      `The mod sharding algorithm needs an integer shard key, but the key kind is ${JSON.stringify(keyKind)}; use 'hash'`,
    );
  }
  const n = shardCount;
  const bigN = BigInt(shardCount);
  const floorMod = (k: number): number => ((k % n) + n) % n;
  const floorModBig = (k: bigint): number => Number(((k % bigN) + bigN) % bigN);
  const asBigInt = (key: unknown): bigint => (typeof key === 'bigint' ? key : BigInt(canonicalKeyString(key, 'integer')));

  return {
    name: `mod(${shardCount})`,
    shardIndexOf(key: unknown): number {
      if (typeof key === 'number' && Number.isSafeInteger(key)) return floorMod(key);
      if (typeof key === 'bigint') return floorModBig(key);
      const text = canonicalKeyString(key, 'integer'); // throws for anything that is not an integer key
      return text.length <= MAX_EXACT_TEXT_LENGTH ? floorMod(Number(text)) : floorModBig(BigInt(text));
    },
    // The key modulo shards × tables is its partition: the remainder by shards is the shard, the quotient the table.
    tableIndexOf(key: unknown, tables: number): number {
      const k = asBigInt(key);
      const t = BigInt(tables);
      const quotient = (k - ((k % bigN) + bigN) % bigN) / bigN;
      return Number(((quotient % t) + t) % t);
    },
    tableRule: (tables) => `floor(key / ${shardCount}) % ${tables}`,
  };
}

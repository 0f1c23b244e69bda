/**
 * A ShardingEngine over fake shard targets, for `explain()` tests: every target refuses to
 * hand out a connection, so a test that reaches the executor fails loudly instead of
 * touching a database.
 */
import type { ShardTarget } from '../../execute/shard-target.js';
import type { SqlDialect } from '../../parameterize/index.js';
import { fakeRules, FOUR_SHARDS, SHOP_TABLES, type FakeTable } from '../../plan/testing/fake-rules.js';
import { ShardingEngine, type EngineSettings } from '../sharding-engine.js';

/** Settings of a fake engine; anything left out takes the library's defaults for route and cache. */
export interface FakeEngineOptions {
  readonly tables?: readonly FakeTable[];
  readonly shardNames?: readonly string[];
  /** @default true */
  readonly pruning?: boolean;
  /** @default 256 */
  readonly maxInValuesPerQuery?: number;
  /** @default 1000 */
  readonly planCacheSize?: number;
}

/** A target that never connects: `explain()` must not execute anything. */
export function refusingTarget(name: string, index: number): ShardTarget {
  const refuse = (): never => {
    throw new Error(`fake shard ${name}: explain() must not open a connection`);
  };
  return { name, index, server: name, dataSource: undefined as never, createRunner: refuse, releaseRunner: refuse, execute: refuse, check: refuse };
}

/** A ShardingEngine of `dialect` over the shop tables (or `options.tables`) and refusing targets. */
export function fakeEngine(dialect: SqlDialect, options: FakeEngineOptions = {}): ShardingEngine {
  const shardNames = options.shardNames ?? FOUR_SHARDS;
  const settings: EngineSettings = {
    pruning: options.pruning ?? true,
    maxInValuesPerQuery: options.maxInValuesPerQuery ?? 256,
    planCacheSize: options.planCacheSize ?? 1000,
    concurrency: 1,
    globalQueue: undefined,
    onPhysicalQuery: undefined,
  };
  return new ShardingEngine(fakeRules(options.tables ?? SHOP_TABLES, shardNames), shardNames.map(refusingTarget), dialect, settings);
}

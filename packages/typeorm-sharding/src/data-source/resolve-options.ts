import { availableParallelism } from 'node:os';
import PQueue from 'p-queue';
import { ShardingConfigError } from '../errors/index.js';
import type { EngineSettings } from '../engine/sharding-engine.js';
import type { ShardedDataSourceOptions, ShardingOptions } from './options.js';

/** Checks the shard list: at least one shard, every name non-empty and unique. */
export function validateShards(options: ShardedDataSourceOptions): void {
  const shards = (options as { shards?: unknown }).shards;
  if (!Array.isArray(shards) || shards.length === 0) {
    throw new ShardingConfigError('ShardedDataSource needs at least one entry in `shards`.');
  }
  const seen = new Set<string>();
  shards.forEach((shard: { name?: unknown }, index) => {
    if (typeof shard?.name !== 'string' || shard.name.trim() === '') {
      throw new ShardingConfigError(`shards[${index}] needs a non-empty \`name\`; got ${JSON.stringify(shard?.name)}.`);
    }
    if (seen.has(shard.name)) throw new ShardingConfigError(`Shard name "${shard.name}" is used twice; shard names must be unique.`, { shard: shard.name });
    seen.add(shard.name);
  });
  const type = (options as { type?: string }).type;
  if (type !== 'mysql' && type !== 'mariadb' && type !== 'better-sqlite3') {
    throw new ShardingConfigError(`ShardedDataSource supports type 'mysql', 'mariadb' and 'better-sqlite3'; got ${JSON.stringify(type)}.`);
  }
}

/** Shards per coalesced statement unless `sharding.coalesce.maxBranches` says otherwise (see the benchmark). */
const DEFAULT_MAX_BRANCHES = 16;

const PHYSICAL_LOG_LEVELS: readonly unknown[] = [false, 'query', 'log', 'info', 'warn'];

function positiveInteger(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new ShardingConfigError(`sharding.${name} must be a positive integer; got ${JSON.stringify(value)}.`);
  }
  return value;
}

/** ShardingOptions with defaults applied, validated eagerly. */
/**
 * @param widestServer most shards on one server: without an explicit `coalesce.maxBranches`, a
 *   server with more than 64 × concurrency shards is sent wider UNION ALLs (see `ShardingOptions.coalesce`)
 */
export function resolveShardingOptions(options: ShardingOptions = {}, widestServer = 0): EngineSettings {
  const globalConcurrency = options.globalConcurrency === undefined || options.globalConcurrency === Infinity
    ? undefined
    : positiveInteger('globalConcurrency', options.globalConcurrency, 1);
  if (options.pruning !== undefined && typeof options.pruning !== 'boolean') {
    throw new ShardingConfigError(`sharding.pruning must be true or false; got ${JSON.stringify(options.pruning)}.`);
  }
  if (options.onPhysicalQuery !== undefined && typeof options.onPhysicalQuery !== 'function') {
    throw new ShardingConfigError('sharding.onPhysicalQuery must be a function.');
  }
  if (options.logPhysicalQueries !== undefined && !PHYSICAL_LOG_LEVELS.includes(options.logPhysicalQueries)) {
    throw new ShardingConfigError(`sharding.logPhysicalQueries must be false, 'query', 'log', 'info' or 'warn'; got ${JSON.stringify(options.logPhysicalQueries)}.`);
  }
  const planCacheSize = options.planCacheSize === 0 ? 0 : positiveInteger('planCacheSize', options.planCacheSize, 1000);
  if ('combinePerServer' in options) {
    throw new ShardingConfigError('sharding.combinePerServer is gone: statements to shards of one server are now combined by default (sharding.coalesce; false turns it off).');
  }
  if (options.tables !== undefined && (typeof options.tables !== 'object' || options.tables === null || Array.isArray(options.tables))) {
    throw new ShardingConfigError(`sharding.tables must be an object of table layouts by table name, e.g. { orders: 4 }; got ${JSON.stringify(options.tables)}.`);
  }
  if (options.partitions !== undefined && (typeof options.partitions !== 'object' || options.partitions === null || Array.isArray(options.partitions))) {
    throw new ShardingConfigError(`sharding.partitions must be an object of partition counts by table name, e.g. { orders: 16 }; got ${JSON.stringify(options.partitions)}.`);
  }
  if (options.pageWindows !== undefined && typeof options.pageWindows !== 'boolean') {
    throw new ShardingConfigError(`sharding.pageWindows must be true or false; got ${JSON.stringify(options.pageWindows)}.`);
  }
  const coalesce = options.coalesce ?? true;
  if (typeof coalesce !== 'boolean' && (typeof coalesce !== 'object' || coalesce === null)) {
    throw new ShardingConfigError(`sharding.coalesce must be true, false or { maxBranches }; got ${JSON.stringify(coalesce)}.`);
  }
  const concurrency = positiveInteger('concurrency', options.concurrency, availableParallelism());
  // A scatter's round trips, not its rows, are most of its Node CPU: about four statements per concurrency slot.
  const defaultBranches = Math.max(DEFAULT_MAX_BRANCHES, Math.ceil(widestServer / (4 * concurrency)));
  return {
    concurrency,
    maxInValuesPerQuery: positiveInteger('maxInValuesPerQuery', options.maxInValuesPerQuery, 256),
    pruning: options.pruning ?? true,
    planCacheSize,
    streamThreshold: positiveInteger('streamThreshold', options.streamThreshold, 1000),
    pageWindows: options.pageWindows ?? true,
    maxSubqueryValues: positiveInteger('maxSubqueryValues', options.maxSubqueryValues, 10_000),
    rememberedOwners: options.rememberedOwners === 0 ? 0 : positiveInteger('rememberedOwners', options.rememberedOwners, 10_000),
    coalesce: coalesce === false ? undefined : { maxBranches: positiveInteger('coalesce.maxBranches', coalesce === true ? undefined : coalesce.maxBranches, defaultBranches) },
    globalQueue: globalConcurrency === undefined ? undefined : new PQueue({ concurrency: globalConcurrency }),
    onPhysicalQuery: options.onPhysicalQuery,
  };
}

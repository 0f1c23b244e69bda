import { ShardingConfigError } from '../errors/index.js';
import { DEFAULT_TOPOLOGY_DATABASE } from './topology-store.js';
import type { TopologyTimings } from './topology-runtime.js';

/** `sharding.topology` on MySQL/MariaDB: where the metadata tables live and how often to read them. */
export interface MysqlTopologyOptions {
  /** A server name from `servers` holding the metadata tables. @default the first server */
  readonly server?: string;
  /** Its database. @default 'typeorm_sharding_meta' */
  readonly database?: string;
  /** Poll interval of the store, in ms. @default 1000 */
  readonly refreshMs?: number;
  /** How long an autocommit write refused by the fence is retried (refreshing) before `TopologyChangedError`, in ms. @default 5000 */
  readonly fenceRetryMs?: number;
}

/** `sharding.topology` on SQLite: a file holding the same tables. */
export interface SqliteTopologyOptions {
  /** The SQLite file of the metadata tables. */
  readonly file: string;
  /** @default 1000 */
  readonly refreshMs?: number;
  /** @default 5000 */
  readonly fenceRetryMs?: number;
}

/** `sharding.topology`: the shared, versioned topology (README, "Online resharding"). */
export type TopologyOptions = MysqlTopologyOptions | SqliteTopologyOptions;

/** The options checked, with defaults. */
export type ResolvedTopologyOptions = TopologyTimings &
  ({ readonly dialect: 'mysql'; readonly server: string | undefined; readonly database: string } | { readonly dialect: 'sqlite'; readonly file: string });

const KEYS = { mysql: ['server', 'database', 'refreshMs', 'fenceRetryMs'], sqlite: ['file', 'refreshMs', 'fenceRetryMs'] } as const;

/** Checks `sharding.topology` eagerly (unknown keys are refused). */
export function resolveTopologyOptions(options: unknown, dialect: 'mysql' | 'sqlite'): ResolvedTopologyOptions | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ShardingConfigError(`sharding.topology must be an object (${dialect === 'mysql' ? '{ server?, database?, refreshMs?, fenceRetryMs? }' : '{ file, refreshMs?, fenceRetryMs? }'}); got ${JSON.stringify(options)}.`);
  }
  const o = options as Record<string, unknown>;
  const unknown = Object.keys(o).filter((k) => !(KEYS[dialect] as readonly string[]).includes(k));
  if (unknown.length > 0) throw new ShardingConfigError(`sharding.topology: unknown key${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `\`${k}\``).join(', ')} (${dialect} takes ${KEYS[dialect].join(', ')}).`);
  const timings = { refreshMs: positive('refreshMs', o['refreshMs'], 1000), fenceRetryMs: nonNegative('fenceRetryMs', o['fenceRetryMs'], 5000) };
  if (dialect === 'sqlite') {
    if (typeof o['file'] !== 'string' || o['file'] === '') throw new ShardingConfigError(`sharding.topology.file must name the SQLite file of the topology store; got ${JSON.stringify(o['file'])}.`);
    return { dialect, file: o['file'], ...timings };
  }
  for (const key of ['server', 'database'] as const) {
    if (o[key] !== undefined && (typeof o[key] !== 'string' || o[key] === '')) throw new ShardingConfigError(`sharding.topology.${key} must be a non-empty string; got ${JSON.stringify(o[key])}.`);
  }
  return { dialect, server: o['server'] as string | undefined, database: (o['database'] as string | undefined) ?? DEFAULT_TOPOLOGY_DATABASE, ...timings };
}

function positive(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new ShardingConfigError(`sharding.topology.${name} must be a positive integer (ms); got ${JSON.stringify(value)}.`);
  return value;
}

function nonNegative(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new ShardingConfigError(`sharding.topology.${name} must be an integer ≥ 0 (ms); got ${JSON.stringify(value)}.`);
  return value;
}

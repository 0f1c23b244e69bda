import type { MysqlConnectionCredentialsOptions } from 'typeorm/driver/mysql/MysqlConnectionCredentialsOptions.js';
import { RouterConfigError } from '../errors.js';
import { DEFAULT_HEALTH, type HealthCheckOptions } from '../router-options.js';
import { NO_PASSWORD, Secret } from '../secret.js';
import type { BalancerName, NodeConfig, NodeRole, ServerConfig } from '../topology.js';

/** TypeORM's `replication` option of a MySQL data source, as its typings declare it. */
export interface TypeormReplication {
  readonly master: MysqlConnectionCredentialsOptions;
  readonly slaves: readonly MysqlConnectionCredentialsOptions[];
  readonly canRetry?: boolean;
  readonly removeNodeErrorCount?: number;
  readonly restoreNodeTimeout?: number;
  readonly selector?: 'RR' | 'RANDOM' | 'ORDER';
  readonly defaultMode?: 'master' | 'slave';
}

/** A server read from TypeORM's form, and the router options that form also sets. */
export interface TypeormReplicationServer {
  readonly server: ServerConfig;
  /** `removeNodeErrorCount` → `errorThreshold`, `restoreNodeTimeout` → `minDownMs`. */
  readonly health: HealthCheckOptions;
  /** `canRetry`. */
  readonly retryReads: boolean;
  /** `defaultMode`. */
  readonly defaultReads: 'replica' | 'primary';
}

const SELECTORS: Readonly<Record<'RR' | 'RANDOM' | 'ORDER', BalancerName>> = { RR: 'round_robin', RANDOM: 'random', ORDER: 'order' };

/**
 * Reads TypeORM's `replication: { master, slaves }` so that an existing configuration keeps
 * working, mapped onto the router as mysql2's pool cluster would use it:
 * - `selector` `RR` / `RANDOM` / `ORDER` → the `round_robin` / `random` / `order` balancer
 *   (mysql2's default, `RR`, when absent — not the router's own `load_score`);
 * - `canRetry` → `retryReads` (retry a read once on another node after a connection error);
 * - `removeNodeErrorCount` → `health.errorThreshold` (connection errors of real statements
 *   that take a node out, default 5 as in mysql2);
 * - `restoreNodeTimeout` → `health.minDownMs`. mysql2 reads 0 (its default) as "never use
 *   the node again"; here a node that is down comes back when its heartbeats succeed, which
 *   mysql2 cannot observe, and 0 means it may come back at once;
 * - `defaultMode: 'master'` → plain reads on the primary.
 *
 * Slaves are named `<server>-slave<i>` (TypeORM registers them as `SLAVE<i>`), the master
 * `<server>-master`. `url` is read as TypeORM reads it (`mysql://user:password@host:port/db`).
 */
export function fromTypeormReplication(serverName: string, replication: TypeormReplication, base: HealthCheckOptions = DEFAULT_HEALTH): TypeormReplicationServer {
  if (!replication.master) throw new RouterConfigError('replication.master', 'missing');
  if (!Array.isArray(replication.slaves)) throw new RouterConfigError('replication.slaves', 'expected a list (it may be empty)');
  const selector = replication.selector ?? 'RR';
  if (!(selector in SELECTORS)) throw new RouterConfigError('replication.selector', `expected RR, RANDOM or ORDER, got ${JSON.stringify(selector)}`);
  const errorThreshold = replication.removeNodeErrorCount ?? 5;
  const minDownMs = replication.restoreNodeTimeout ?? 0;
  if (!Number.isInteger(errorThreshold) || errorThreshold < 0) throw new RouterConfigError('replication.removeNodeErrorCount', `expected an integer ≥ 0, got ${String(errorThreshold)}`);
  if (!Number.isFinite(minDownMs) || minDownMs < 0) throw new RouterConfigError('replication.restoreNodeTimeout', `expected a number ≥ 0, got ${String(minDownMs)}`);
  const server: ServerConfig = Object.freeze({
    name: serverName,
    primary: credentialsNode(`${serverName}-master`, 'primary', serverName, replication.master, 'replication.master'),
    replicas: Object.freeze(replication.slaves.map((s, i) => credentialsNode(`${serverName}-slave${i}`, 'replica', serverName, s, `replication.slaves[${i}]`))),
    analytics: Object.freeze([]),
    replicaBalancer: SELECTORS[selector],
    analyticsBalancer: 'least_outstanding',
  });
  return {
    server,
    health: Object.freeze({ ...base, errorThreshold, minDownMs }),
    retryReads: replication.canRetry ?? true,
    defaultReads: replication.defaultMode === 'master' ? 'primary' : 'replica',
  };
}

function credentialsNode(name: string, role: NodeRole, server: string, c: MysqlConnectionCredentialsOptions, path: string): NodeConfig {
  const fromUrl = c.url ? parseUrl(c.url, path) : undefined;
  const host = c.host ?? fromUrl?.host;
  if (!host) throw new RouterConfigError(`${path}.host`, 'missing (give host or url)');
  const port = c.port ?? fromUrl?.port ?? 3306;
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RouterConfigError(`${path}.port`, `expected a port number, got ${String(port)}`);
  const poolSize = c.poolSize ?? 10;
  if (!Number.isInteger(poolSize) || poolSize < 1) throw new RouterConfigError(`${path}.poolSize`, `expected an integer ≥ 1, got ${String(poolSize)}`);
  const password = c.password ?? fromUrl?.password;
  return Object.freeze({
    name,
    role,
    server,
    host,
    port,
    user: c.username ?? fromUrl?.user ?? 'root',
    password: password === undefined ? NO_PASSWORD : new Secret(password),
    poolSize,
    weight: 1,
    database: c.database ?? fromUrl?.database,
  });
}

function parseUrl(url: string, path: string): { host: string; port: number | undefined; user: string | undefined; password: string | undefined; database: string | undefined } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // The URL may hold a password: never echo it.
    throw new RouterConfigError(`${path}.url`, 'not a valid URL (expected mysql://user:password@host:port/database)');
  }
  return {
    host: parsed.hostname,
    port: parsed.port === '' ? undefined : Number(parsed.port),
    user: parsed.username === '' ? undefined : decodeURIComponent(parsed.username),
    password: parsed.password === '' ? undefined : decodeURIComponent(parsed.password),
    database: parsed.pathname.length > 1 ? decodeURIComponent(parsed.pathname.slice(1)) : undefined,
  };
}

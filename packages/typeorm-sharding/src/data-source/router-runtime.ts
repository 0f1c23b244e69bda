import type { DataSource } from 'typeorm';
import type { MysqlDriver } from 'typeorm/driver/mysql/MysqlDriver.js';
import type { ConnectionOptions } from 'mysql2';
import { ServerNodes } from '../execute/routing/server-nodes.js';
import { StatementRouting } from '../execute/routing/statement-routing.js';
import type { RoutingSetup } from '../router/config/read-data-source-routing.js';
import { TRACK_LAST_GTID_SQL } from '../router/lag/capture-gtid.js';
import { MysqlMonitorConnections } from '../router/monitor-connections.js';
import { createNodePool, type SharedPoolOptions } from '../router/node-pools.js';
import { QueryRouter } from '../router/query-router.js';
import { nodesOf, type NodeConfig } from '../router/topology.js';
import type { Mysql2Pool, ServerPool } from '../servers/server-pool.js';

/** One server of the data source as the router runtime needs it. */
export interface RuntimeServer {
  readonly name: string;
  /** The server's pools of its TypeORM DataSource: the primary's. */
  readonly pool: ServerPool;
  readonly source: DataSource;
}

/** mysql2 pool options a driver derives from its TypeORM options (charset, timezone, big numbers, TLS, `extra` …). */
type Mysql2Options = ConnectionOptions & { connectionLimit?: number };

/** What TypeORM's MySQL driver has that is not in its typings as used here. */
interface DriverInternals {
  readonly mysql: { createPool(options: unknown): Mysql2Pool & { on(event: 'connection', listener: (c: { query(sql: string, cb: () => void): void }) => void): void } };
  readonly options: unknown;
  createConnectionOptions(options: unknown, credentials: unknown): Mysql2Options | Promise<Mysql2Options>;
}

/**
 * The query router of a ShardedDataSource at run time: the router itself, one pool per
 * replica and analytics node (the primary's is the server's TypeORM pool), the monitors'
 * connections, and each server's `ServerNodes` for the executor. Opened after the servers'
 * DataSources connected, closed before them.
 */
export class RouterRuntime {
  readonly router: QueryRouter;
  readonly routing: StatementRouting;
  /** Per server, in topology order. */
  readonly nodes: readonly ServerNodes[];
  private readonly pools = new Map<string, Mysql2Pool>();

  private constructor(router: QueryRouter, servers: readonly RuntimeServer[], shared: readonly Mysql2Options[]) {
    this.router = router;
    this.routing = new StatementRouting((sql) => router.hintsOf(sql));
    const byServer = new Map(router.serverConfigs.map((s) => [s.name, s]));
    this.nodes = servers.map((server, i) => {
      const config = byServer.get(server.name)!;
      for (const node of nodesOf(config)) if (node.role !== 'primary') this.pools.set(node.name, createNodePool(node, poolOptions(shared[i]!)) as unknown as Mysql2Pool);
      const primary = () => (server.source.driver as unknown as { pool: Mysql2Pool }).pool;
      const options = server.source.driver.options as { enableQueryTimeout?: boolean; maxQueryExecutionTime?: number };
      return new ServerNodes(server.name, router, server.pool, (node) => (node.role === 'primary' ? primary() : this.pools.get(node.name)!), options.enableQueryTimeout ? options.maxQueryExecutionTime : undefined);
    });
  }

  /**
   * Opens the runtime over connected servers. `warn` receives the router's warnings (hint
   * problems, a replica that does not replicate): the data source's logger.
   */
  static async open(setup: RoutingSetup, servers: readonly RuntimeServer[], warn: (message: string) => void): Promise<RouterRuntime> {
    const shared = await Promise.all(servers.map((s) => driverOptions(s.source)));
    const index = new Map(servers.map((s, i) => [s.name, i]));
    const monitorOptions = (node: NodeConfig): ConnectionOptions => {
      const base = shared[index.get(node.server) ?? 0]!;
      if (node.role === 'primary') return monitorOf(base);
      return { ...monitorOf(poolOptions(base)), host: node.host, port: node.port, user: node.user, password: node.password.reveal() };
    };
    const router = new QueryRouter(setup.config, { warn, metrics: setup.metrics, monitor: new MysqlMonitorConnections(setup.config.health.timeoutMs, monitorOptions) });
    return new RouterRuntime(router, servers, shared);
  }

  /**
   * Measures every replica's lag once, then starts heartbeats, lag checks, load sampling and
   * warm-up (at the end of `initialize()`): the first reads find each replica's lag known (or
   * known to be unknown, which keeps it out of rotation), not assumed.
   */
  async start(): Promise<void> {
    await this.router.checkLagNow();
    this.router.start();
  }

  /** Stops the monitors and closes their connections and the replicas' pools (not the primaries': the servers' DataSources own them). */
  async close(): Promise<void> {
    await this.router.stop();
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => new Promise<void>((resolve) => p.end(() => resolve()))));
  }
}

/**
 * Makes the primary's pool (the server DataSource's own, opened by TypeORM) ask the server to
 * report each write's GTID: the statement runs on every new connection before its first use.
 * Call before the DataSource is initialised.
 */
export function trackGtidsOnPrimary(source: DataSource): void {
  const driver = source.driver as unknown as DriverInternals;
  Object.assign(driver, {
    // TypeORM's own createPool, plus the hook: open the pool, check one connection, resolve.
    createPool: (options: unknown) =>
      new Promise((resolve, reject) => {
        const pool = driver.mysql.createPool(options);
        pool.on('connection', (connection) => connection.query(TRACK_LAST_GTID_SQL, () => undefined));
        pool.getConnection((error, connection) => {
          if (error) return pool.end(() => reject(error));
          connection.release();
          resolve(pool);
        });
      }),
  });
}

/** The mysql2 options TypeORM derives for the server's pool (the primary's). */
async function driverOptions(source: DataSource): Promise<Mysql2Options> {
  const driver = source.driver as unknown as MysqlDriver & DriverInternals;
  return await driver.createConnectionOptions(driver.options, driver.options);
}

/** What every node pool of the server shares: the server's options without its address and credentials. */
function poolOptions(options: Mysql2Options): SharedPoolOptions {
  const { host: _h, port: _p, user: _u, password: _pw, database: _d, socketPath: _s, connectionLimit: _c, ...shared } = options as Mysql2Options & Record<string, unknown>;
  return shared as SharedPoolOptions;
}

/** Pool options as the options of one monitoring connection. */
function monitorOf(options: Mysql2Options | SharedPoolOptions): ConnectionOptions {
  const { connectionLimit: _c, waitForConnections: _w, queueLimit: _q, maxIdle: _m, idleTimeout: _i, database: _d, ...connection } = options as Mysql2Options & Record<string, unknown>;
  return connection as ConnectionOptions;
}

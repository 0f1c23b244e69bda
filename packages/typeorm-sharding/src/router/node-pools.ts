import { createRequire } from 'node:module';
import type { Pool, PoolOptions } from 'mysql2';
import { TRACK_LAST_GTID_SQL } from './lag/capture-gtid.js';
import type { NodeQuery } from './lag/wait-for-gtid.js';
import { nodesOf, type NodeConfig, type ServerConfig } from './topology.js';

// mysql2 is the user's dependency (TypeORM's MySQL driver needs it too): loaded on first use.
const require = createRequire(import.meta.url);

/** mysql2 options every node pool gets (charset, timezone, supportBigNumbers, …); connection facts come from the node. */
export type SharedPoolOptions = Omit<PoolOptions, 'host' | 'port' | 'user' | 'password' | 'connectionLimit'>;

/**
 * Opens the mysql2 pool of one node: its host, port, user, password and `poolSize`. A
 * primary's connections ask the server to report each write's GTID (`TRACK_LAST_GTID_SQL`,
 * run on every new connection before its first statement), which read-your-writes needs.
 */
export function createNodePool(node: NodeConfig, shared: SharedPoolOptions = {}): Pool {
  const mysql = require('mysql2') as typeof import('mysql2');
  const pool = mysql.createPool({
    ...shared,
    host: node.host,
    port: node.port,
    user: node.user,
    password: node.password.reveal(),
    database: shared.database ?? node.database,
    connectionLimit: node.poolSize,
  });
  if (node.role === 'primary') {
    // Commands queue in order on a connection: this runs before the statement that asked for it.
    // A server that cannot track `last_gtid` (MySQL) refuses it: reads then wait for nothing.
    pool.on('connection', (connection) => connection.query(TRACK_LAST_GTID_SQL, () => undefined));
  }
  return pool;
}

/**
 * One pool per node of every server — primary, replicas and analytics nodes each their own,
 * so that long analytics statements never take the connections short reads need. The engine
 * may use this as is or open its pools itself with `createNodePool`.
 */
export class NodePools {
  private readonly pools = new Map<string, Pool>();

  constructor(
    servers: readonly ServerConfig[],
    private readonly shared: SharedPoolOptions = {},
  ) {
    for (const server of servers) for (const node of nodesOf(server)) this.add(node);
  }

  /** Opens the pool of a node added at run time (`QueryRouter.addNode`). */
  add(node: NodeConfig): Pool {
    let pool = this.pools.get(node.name);
    if (pool === undefined) this.pools.set(node.name, (pool = createNodePool(node, this.shared)));
    return pool;
  }

  /** The pool of a node. */
  get(node: NodeConfig | string): Pool {
    const name = typeof node === 'string' ? node : node.name;
    const pool = this.pools.get(name);
    if (pool === undefined) throw new TypeError(`No pool for node ${name}`);
    return pool;
  }

  /** A statement runner on one node's pool (what `QueryRouter.awaitConsistency` takes). */
  queryOn(node: NodeConfig | string): NodeQuery {
    const pool = this.get(node).promise();
    return (sql, values) => pool.query(sql, values as unknown[]);
  }

  /** Closes every pool (waits for their connections to end). */
  async close(): Promise<void> {
    const all = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(all.map((p) => p.promise().end().catch(() => undefined)));
  }
}

import type { Connection, ConnectionOptions } from 'mysql2/promise';
import type { NodeConfig } from './topology.js';

/** Runs monitoring statements on nodes (heartbeats, lag and load sampling). */
export interface MonitorConnections {
  /** Rows of `sql` on `node`; rejects on any failure (the connection is then dropped). */
  query(node: NodeConfig, sql: string): Promise<unknown[]>;
  /** Closes every connection. */
  close(): Promise<void>;
}

/**
 * One mysql2 connection per node, opened on first use and again after any failure. Each
 * statement is bounded by `timeoutMs`: on timeout the connection is destroyed (a statement
 * stuck on a hung server would otherwise hold it forever). Separate from the node pools:
 * monitoring never waits for a pooled connection, and user statements never wait behind it.
 */
export class MysqlMonitorConnections implements MonitorConnections {
  private readonly open = new Map<string, Promise<Connection>>();
  private closed = false;

  /**
   * @param optionsOf the mysql2 options of a node's connection (a data source passes its pools'
   *   own: TLS, socket, charset); @default the node's host, port, user and password
   */
  constructor(
    private readonly timeoutMs: number,
    private readonly optionsOf?: (node: NodeConfig) => ConnectionOptions,
  ) {}

  async query(node: NodeConfig, sql: string): Promise<unknown[]> {
    if (this.closed) throw new Error('monitor connections are closed');
    const pending = this.connection(node);
    const connection = await pending;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const [rows] = await Promise.race([
        connection.query(sql),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`${sql} timed out after ${this.timeoutMs} ms on ${node.name}`)), this.timeoutMs);
        }),
      ]);
      return Array.isArray(rows) ? rows : [rows];
    } catch (error) {
      this.drop(node.name, pending, connection);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.open.values()];
    this.open.clear();
    await Promise.all(all.map((p) => p.then((c) => c.destroy(), () => undefined)));
  }

  private connection(node: NodeConfig): Promise<Connection> {
    const found = this.open.get(node.name);
    if (found !== undefined) return found;
    const pending: Promise<Connection> = (async () => {
      const mysql = await import('mysql2/promise');
      const options = this.optionsOf?.(node) ?? { host: node.host, port: node.port, user: node.user, password: node.password.reveal() };
      const connection = await mysql.createConnection({ ...options, connectTimeout: this.timeoutMs });
      // A broken socket is noticed here, not as an unhandled 'error' event.
      connection.on('error', () => this.drop(node.name, pending, connection));
      return connection;
    })();
    pending.catch(() => {
      if (this.open.get(node.name) === pending) this.open.delete(node.name);
    });
    this.open.set(node.name, pending);
    return pending;
  }

  private drop(name: string, pending: Promise<Connection>, connection: Connection): void {
    if (this.open.get(name) === pending) this.open.delete(name);
    connection.destroy();
  }
}

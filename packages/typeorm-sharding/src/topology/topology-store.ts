import { hostname } from 'node:os';
import { quoteIdentifier } from './fence-sql.js';
import { queryRows, type SqlConnection } from './sql-connection.js';
import { freezeDocument, parseTopologyDocument, validateTopologyDocument, type TopologyDocument } from './topology-document.js';
import { TopologyConflictError, TopologyDocumentError } from './topology-errors.js';

/** Default database of the metadata tables on MySQL/MariaDB. */
export const DEFAULT_TOPOLOGY_DATABASE = 'typeorm_sharding_meta';

/** One stored version. */
export interface StoredTopology {
  readonly version: number;
  readonly document: TopologyDocument;
}

/**
 * The metadata tables of the topology on one connection: `tsh_topology` (one row per version;
 * the current one is MAX(version)) and `tsh_topology_clients` (each process's adopted version).
 * MySQL/MariaDB keep them in `database` of the store server; SQLite in the store file.
 */
export class TopologyStore {
  private readonly topology: string;
  private readonly clients: string;

  constructor(
    private readonly conn: SqlConnection,
    readonly dialect: 'mysql' | 'sqlite',
    /** MySQL: the database holding the tables (ignored on SQLite). */
    readonly database: string = DEFAULT_TOPOLOGY_DATABASE,
  ) {
    const prefix = dialect === 'mysql' ? `${quoteIdentifier(database)}.` : '';
    this.topology = `${prefix}tsh_topology`;
    this.clients = `${prefix}tsh_topology_clients`;
  }

  /** Creates the database (MySQL) and both tables when missing. */
  async ensureTables(): Promise<void> {
    if (this.dialect === 'mysql') {
      await this.conn.query(`CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(this.database)}`);
      await this.conn.query(
        `CREATE TABLE IF NOT EXISTS ${this.topology} (version BIGINT PRIMARY KEY, document LONGTEXT NOT NULL, ` +
          'created_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), comment VARCHAR(255) NULL) ENGINE=InnoDB',
      );
      await this.conn.query(
        `CREATE TABLE IF NOT EXISTS ${this.clients} (client_id VARCHAR(64) PRIMARY KEY, version BIGINT NOT NULL, ` +
          'seen_at TIMESTAMP(6) NOT NULL, host VARCHAR(255) NULL, pid INT NULL) ENGINE=InnoDB',
      );
      return;
    }
    await this.conn.query(
      `CREATE TABLE IF NOT EXISTS ${this.topology} (version BIGINT PRIMARY KEY, document TEXT NOT NULL, ` +
        "created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')), comment VARCHAR(255) NULL)",
    );
    await this.conn.query(
      `CREATE TABLE IF NOT EXISTS ${this.clients} (client_id VARCHAR(64) PRIMARY KEY, version BIGINT NOT NULL, seen_at TEXT NOT NULL, host VARCHAR(255) NULL, pid INT NULL)`,
    );
  }

  /** The current version (MAX(version)), or undefined while the table is empty. */
  async current(): Promise<StoredTopology | undefined> {
    const rows = await queryRows(this.conn, `SELECT version, document FROM ${this.topology} ORDER BY version DESC LIMIT 1`);
    const row = rows[0];
    if (row === undefined) return undefined;
    const version = Number(row['version']);
    return { version, document: parseTopologyDocument(String(row['document']), version) };
  }

  /** Publishes version 1 unless some version exists (concurrent initializers: one wins), then answers the current one. */
  async publishInitial(document: TopologyDocument): Promise<StoredTopology> {
    validateTopologyDocument(document);
    if (document.version !== 1) throw new TopologyDocumentError(`The first topology is version 1, got ${document.version}`);
    const ignore = this.dialect === 'mysql' ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
    await this.conn.query(`${ignore} INTO ${this.topology} (version, document, comment) VALUES (1, ?, ?)`, [JSON.stringify(document), 'initial topology (from the configuration)']);
    const current = await this.current();
    if (current === undefined) throw new TopologyDocumentError('[BUG] the topology table is empty after publishing version 1');
    return current;
  }

  /**
   * Publishes `document` as the next version with a plain INSERT: its `version` must be the
   * current version + 1, and a duplicate key (someone else published that version first) is a
   * `TopologyConflictError`. `servers`: the server names a shard may name.
   */
  async publish(document: TopologyDocument, comment: string | undefined, servers: readonly string[] | undefined): Promise<StoredTopology> {
    const current = await this.current();
    const expected = (current?.version ?? 0) + 1;
    if (document.version !== expected) {
      if (typeof document.version === 'number' && document.version < expected) throw new TopologyConflictError(document.version);
      throw new TopologyDocumentError(`Topology version ${String(document.version)} cannot be published: the current version is ${current?.version ?? 'none'}, the next must be ${expected}`);
    }
    validateTopologyDocument(document, { servers, previous: current?.document });
    try {
      await this.conn.query(`INSERT INTO ${this.topology} (version, document, comment) VALUES (?, ?, ?)`, [document.version, JSON.stringify(document), comment ?? null]);
    } catch (error) {
      if (isDuplicateKey(error)) throw new TopologyConflictError(document.version, error);
      throw error;
    }
    return { version: document.version, document: freezeDocument(document) };
  }

  /** Records that `clientId` routes by `version` now (each poll). */
  async heartbeat(clientId: string, version: number): Promise<void> {
    if (this.dialect === 'mysql') {
      await this.conn.query(
        `INSERT INTO ${this.clients} (client_id, version, seen_at, host, pid) VALUES (?, ?, CURRENT_TIMESTAMP(6), ?, ?) ` +
          'ON DUPLICATE KEY UPDATE version = VALUES(version), seen_at = VALUES(seen_at), host = VALUES(host), pid = VALUES(pid)',
        [clientId, version, hostname().slice(0, 255), process.pid],
      );
      return;
    }
    await this.conn.query(
      `INSERT INTO ${this.clients} (client_id, version, seen_at, host, pid) VALUES (?, ?, strftime('%Y-%m-%d %H:%M:%f', 'now'), ?, ?) ` +
        'ON CONFLICT(client_id) DO UPDATE SET version = excluded.version, seen_at = excluded.seen_at, host = excluded.host, pid = excluded.pid',
      [clientId, version, hostname().slice(0, 255), process.pid],
    );
  }

  /** Removes `clientId`'s row (at `destroy()`). */
  async removeClient(clientId: string): Promise<void> {
    await this.conn.query(`DELETE FROM ${this.clients} WHERE client_id = ?`, [clientId]);
  }
}

function isDuplicateKey(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown; driverError?: { code?: unknown; errno?: unknown } } | null;
  const codes = [e?.code, e?.driverError?.code];
  return codes.includes('ER_DUP_ENTRY') || codes.includes('SQLITE_CONSTRAINT_PRIMARYKEY') || e?.errno === 1062 || e?.driverError?.errno === 1062;
}

import type { Connection } from 'mysql2/promise';

/** Where one shard's database lives: a MariaDB/MySQL server and a database on it. */
export interface Endpoint {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
}

/**
 * A connection of the mover's own (never one of the application's pools: it holds snapshots,
 * session variables and long reads). Dates, big numbers and decimals travel as text so that a
 * copied value is the source's, byte for byte, whatever the time zone of this process.
 */
export async function connect(endpoint: Endpoint, database: string | null = endpoint.database): Promise<Connection> {
  // Loaded here, not at import: SQLite users of the package need no MySQL driver.
  const { createConnection } = await import('mysql2/promise');
  return createConnection({
    host: endpoint.host,
    port: endpoint.port,
    user: endpoint.user,
    password: endpoint.password,
    ...(database === null ? {} : { database }),
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
    decimalNumbers: false,
    multipleStatements: false,
  });
}

/** Backquoted identifier (a backquote inside is doubled). */
export function quoteId(name: string): string {
  return '`' + name.replace(/`/g, '``') + '`';
}

/** Same server (host and port): shards there share one binlog. */
export function sameServer(a: Endpoint, b: Endpoint): boolean {
  return a.host === b.host && a.port === b.port;
}

/** Rows of a query as plain objects. */
export async function rows<T = Record<string, unknown>>(conn: Connection, sql: string, params: unknown[] = []): Promise<T[]> {
  const [result] = await conn.query(sql, params);
  return result as T[];
}

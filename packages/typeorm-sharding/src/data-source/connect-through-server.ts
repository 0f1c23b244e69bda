/**
 * A MySQL shard's DataSource connected without a round trip of its own. Its pool is a view of
 * its server's pool (`servers/server-pool.ts`), and what TypeORM's `MysqlDriver.connect()` reads
 * from the server — its version, and the capabilities TypeORM derives from it — the server's
 * DataSource has already read from the same server. At 1,024 shards the shards' own
 * `SELECT version()` (each after a `USE`) was most of `initialize()`. That each shard's database
 * exists is checked instead with one query per server (`missingDatabases`).
 */
import type { MysqlDriver } from 'typeorm/driver/mysql/MysqlDriver.js';
import type { Mysql2Pool, ServerPool } from '../servers/server-pool.js';

/** The fields `MysqlDriver.connect()` of TypeORM 1.1 sets from the server's version. */
interface ConnectedFields {
  pool: unknown;
  version?: string;
  _isReturningSqlSupported: Record<string, boolean>;
  cteCapabilities: { enabled: boolean };
  uuidColumnTypeSuported: boolean;
}

/** Makes `shard.connect()` adopt `pool` and what `server` read when it connected. */
export function connectThroughServer(shard: MysqlDriver, server: MysqlDriver, pool: Mysql2Pool): void {
  const target = shard as unknown as ConnectedFields;
  const source = server as unknown as ConnectedFields;
  Object.assign(shard, {
    connect: async () => {
      target.pool = pool;
      target.version = source.version;
      target._isReturningSqlSupported = { ...source._isReturningSqlSupported };
      target.cteCapabilities = { ...source.cteCapabilities };
      target.uuidColumnTypeSuported = source.uuidColumnTypeSuported;
    },
  });
}

/** The names of `databases` the server does not have (or does not show this user), in their order. */
export async function missingDatabases(server: ServerPool, databases: readonly string[]): Promise<string[]> {
  if (databases.length === 0) return [];
  const raw = (await server.query('SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA', [], undefined)) as { name: string }[];
  const present = new Set(raw.map((row) => row.name));
  return databases.filter((name) => !present.has(name));
}

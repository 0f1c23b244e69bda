import mysql from 'mysql2/promise';

/**
 * Connection facts of the MariaDB every development and CI machine runs. `TSH_MARIADB_PORT`
 * points the tests at another local server (two checkouts testing side by side each use their
 * own, since test files name their databases).
 */
export const MARIADB = { host: '127.0.0.1', port: Number(process.env.TSH_MARIADB_PORT ?? 3306), user: 'root', password: '' } as const;

/** Where a test's MariaDB is (another server than `MARIADB`, e.g. one with a binlog). */
export interface ServerAddress { readonly host: string; readonly port: number; readonly user: string; readonly password: string }

let reachable: Promise<boolean> | undefined;

/**
 * Whether MariaDB answers. With CI=true an unreachable server is a failure, never a skip:
 * the MariaDB tests must run in CI.
 */
export function mariadbAvailable(): Promise<boolean> {
  reachable ??= (async () => {
    try {
      const c = await mysql.createConnection({ ...MARIADB, connectTimeout: 2000 });
      await c.end();
      return true;
    } catch (error) {
      if (process.env.CI === 'true') throw new Error(`CI=true but MariaDB on 127.0.0.1:3306 is unreachable: ${(error as Error).message}`);
      return false;
    }
  })();
  return reachable;
}

/** Creates (empty) databases with these names, dropping any leftovers first. */
export async function createDatabases(names: readonly string[], server: ServerAddress = MARIADB): Promise<void> {
  const c = await mysql.createConnection(server);
  try {
    for (const n of names) {
      await c.query(`DROP DATABASE IF EXISTS \`${n}\``);
      await c.query(`CREATE DATABASE \`${n}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
    }
  } finally {
    await c.end();
  }
}

/** Drops the databases a test created. */
export async function dropDatabases(names: readonly string[], server: ServerAddress = MARIADB): Promise<void> {
  const c = await mysql.createConnection(server);
  try {
    for (const n of names) await c.query(`DROP DATABASE IF EXISTS \`${n}\``);
  } finally {
    await c.end();
  }
}

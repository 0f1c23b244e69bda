import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { bucketSql, crc32 } from '../packages/typeorm-sharding/src/algorithms/index.js';
import { MARIADB } from './support/mariadb.js';
import { GOLDEN_VECTORS } from '../packages/typeorm-sharding/src/algorithms/golden-vectors.fixture.js';

// The hash is documented as MySQL/MariaDB's CRC32(), so that a row's bucket can be computed
// in SQL: CRC32(CAST(id AS CHAR)) % 1024. This file checks that claim against the server.

// mysql2 is a dependency of the library package, not of the workspace root.
const requireFromLibrary = createRequire(new URL('../packages/typeorm-sharding/package.json', import.meta.url));

interface Connection {
  query(sql: string, values?: unknown[]): Promise<[unknown, unknown]>;
  end(): Promise<void>;
}
interface MysqlPromise {
  createConnection(options: Record<string, unknown>): Promise<Connection>;
}

const DATABASE = 'typeorm_sharding_hash_agreement';
const mustRun = process.env.CI === 'true';

async function connect(): Promise<{ connection?: Connection; error?: unknown }> {
  try {
    const mysql = requireFromLibrary('mysql2/promise') as MysqlPromise;
    const connection = await mysql.createConnection({
      ...MARIADB,
      charset: 'utf8mb4_general_ci',
      connectTimeout: 5000,
    });
    return { connection };
  } catch (error) {
    return { error };
  }
}

const { connection, error: connectError } = await connect();

async function rows<T>(sql: string, values: unknown[] = []): Promise<T[]> {
  const [result] = await connection!.query(sql, values);
  return result as T[];
}

describe('CRC32 agrees with MariaDB', () => {
  if (connection === undefined) {
    const reason = connectError instanceof Error ? connectError.message : String(connectError);
    if (mustRun) {
      it('connects to MariaDB on 127.0.0.1:3306 (required when CI=true)', () => {
        throw new Error(`MariaDB is unreachable: ${reason}`);
      });
    } else {
      it.skip(`MariaDB is unreachable on 127.0.0.1:3306 (${reason})`, () => {});
    }
    return;
  }

  afterAll(async () => {
    await connection.query(`DROP DATABASE IF EXISTS ${DATABASE}`);
    await connection.end();
  });

  it.each(GOLDEN_VECTORS)('CRC32($canonical) = $crc32', async (v) => {
    const [row] = await rows<{ c: string | number }>('SELECT CRC32(?) AS c', [v.canonical]);
    expect(Number(row!.c)).toBe(v.crc32);
    expect(crc32(v.canonical)).toBe(v.crc32);
  });

  it('computes the documented bucket formula on real key columns', async () => {
    await connection.query(`CREATE DATABASE IF NOT EXISTS ${DATABASE} CHARACTER SET utf8mb4`);
    await connection.query(`USE ${DATABASE}`);
    await connection.query('CREATE TEMPORARY TABLE signed_keys (id BIGINT PRIMARY KEY)');
    await connection.query('CREATE TEMPORARY TABLE unsigned_keys (id BIGINT UNSIGNED PRIMARY KEY)');
    await connection.query(
      'CREATE TEMPORARY TABLE string_keys (code VARCHAR(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PRIMARY KEY)',
    );
    const expected = new Map<string, number>();
    for (const v of GOLDEN_VECTORS) {
      expected.set(v.canonical, v.bucket);
      const table =
        v.kind === 'string' ? 'string_keys' : BigInt(v.canonical) > 2n ** 63n - 1n ? 'unsigned_keys' : 'signed_keys';
      await connection.query(`INSERT INTO ${table} VALUES (?)`, [v.canonical]);
    }

    const found = await rows<{ k: string; bucket: string | number }>(
      `SELECT CAST(id AS CHAR) AS k, CRC32(CAST(id AS CHAR)) % 1024 AS bucket FROM signed_keys
       UNION ALL SELECT CAST(id AS CHAR), CRC32(CAST(id AS CHAR)) % 1024 FROM unsigned_keys
       UNION ALL SELECT code, CRC32(code) % 1024 FROM string_keys`,
    );
    expect(found).toHaveLength(GOLDEN_VECTORS.length);
    for (const { k, bucket } of found) expect([k, Number(bucket)]).toEqual([k, expected.get(k)]);

    // The expression resharding copies and fences by, on a latin1 column too (UTF-8 bytes hashed).
    await connection.query('CREATE TEMPORARY TABLE latin_keys (code VARCHAR(100) CHARACTER SET latin1 PRIMARY KEY)');
    const latin = GOLDEN_VECTORS.filter((v) => v.kind === 'string' && /^[\x20-\x7e\u00a0-\u00ff]*$/.test(v.canonical));
    for (const v of latin) await connection.query('INSERT INTO latin_keys VALUES (?)', [v.canonical]);
    const bySql = await rows<{ k: string; bucket: string | number }>(
      `SELECT CAST(id AS CHAR) AS k, ${bucketSql('id', 'integer', 1024)} AS bucket FROM signed_keys
       UNION ALL SELECT CAST(id AS CHAR), ${bucketSql('id', 'integer', 1024)} FROM unsigned_keys
       UNION ALL SELECT code, ${bucketSql('code', 'string', 1024)} FROM string_keys
       UNION ALL SELECT code, ${bucketSql('code', 'string', 1024)} FROM latin_keys`,
    );
    expect(bySql).toHaveLength(GOLDEN_VECTORS.length + latin.length);
    for (const { k, bucket } of bySql) expect([k, Number(bucket)]).toEqual([k, expected.get(k)]);
  });
});

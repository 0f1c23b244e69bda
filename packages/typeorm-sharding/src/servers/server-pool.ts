/**
 * One mysql2 pool per server, shared by every shard database on it.
 *
 * The engine's statements name their shard's tables with the database (`shard_3`.`orders`),
 * so they run on any connection of the server whatever its default database: that is what
 * lets one statement cover several shards (UNION ALL per server) and keeps the connection
 * count at one pool per server instead of one per shard. A statement that cannot be written so
 * (DDL, a table the plugin does not know) runs on a connection whose default database is its
 * shard's: the pool remembers each connection's default database and sends `USE` only when it
 * differs. A shard's own TypeORM DataSource (`getShardDataSource`, schema sync, migrations)
 * gets the same pool through `databaseView`, so it holds no connections of its own.
 */

import { mysqlQuery } from './mysql-query.js';

/** The part of a mysql2 pool connection used here (and by TypeORM's MysqlQueryRunner). */
export interface PooledConnection {
  query(sql: string | { readonly sql: string; readonly timeout?: number; readonly dateStrings?: boolean }, values: unknown, callback: (error: (Error & { errno?: number }) | null, raw: unknown) => void): void;
  release(): void;
}

/** The part of a mysql2 pool used here (and by TypeORM's MysqlDriver). */
export interface Mysql2Pool {
  getConnection(callback: (error: Error | null, connection: PooledConnection) => void): void;
  query(sql: string, values: unknown, callback: (error: Error | null, raw: unknown) => void): void;
  end(callback?: (error?: Error | null) => void): void;
}

export class ServerPool {
  /** The default database of each connection, as far as `USE` statements sent here set it. */
  private readonly databases = new WeakMap<object, string>();

  /**
   * @param name the server's name (errors, events)
   * @param pool the server's mysql2 pool (TypeORM's, of the server's DataSource); read on each use
   */
  constructor(
    readonly name: string,
    private readonly pool: () => Mysql2Pool,
  ) {}

  /** Connections the server's pool opens at most (mysql2's `connectionLimit`, TypeORM's `poolSize`; mysql2's default 10). */
  get connectionLimit(): number {
    const limit = (this.pool() as { config?: { connectionLimit?: unknown } }).config?.connectionLimit;
    return typeof limit === 'number' && limit > 0 ? limit : 10;
  }

  /**
   * A connection of the server; with `database`, one whose default database is that one.
   * `pool`: one node's pool (a replica's, with the query router), else the server's own (the primary's).
   */
  connection(database: string | undefined, pool: Mysql2Pool = this.pool()): Promise<PooledConnection> {
    return new Promise((resolve, reject) => {
      pool.getConnection((error, connection) => {
        if (error) return reject(error);
        if (database === undefined) return resolve(connection);
        this.use(connection, database).then(
          () => resolve(connection),
          (useError: unknown) => {
            connection.release();
            reject(useError);
          },
        );
      });
    });
  }

  /** Makes `database` the default database of `connection` (a pinned transaction connection too), when it is not already. */
  async use(connection: PooledConnection, database: string): Promise<void> {
    if (this.databases.get(connection) === database) return;
    await new Promise<void>((resolve, reject) => connection.query(`USE \`${database.replace(/`/g, '``')}\``, [], (error) => (error ? reject(error) : resolve())));
    this.databases.set(connection, database);
  }

  /**
   * Runs one statement on a connection of its own and gives the connection back.
   * `serverText`: dates and times read as the server's text (see `PhysicalStatement.serverText`).
   */
  async query(sql: string, parameters: readonly unknown[], database: string | undefined, serverText = false): Promise<unknown> {
    const connection = await this.connection(database);
    try {
      return await new Promise((resolve, reject) => connection.query(mysqlQuery(sql, { serverText }), parameters, (error, raw) => (error ? reject(error) : resolve(raw))));
    } finally {
      connection.release();
    }
  }

  /**
   * A pool-shaped view for a shard's own DataSource: its connections come from this server's
   * pool with `database` as their default database; ending the view ends nothing (the server's
   * DataSource owns the pool).
   */
  databaseView(database: string): Mysql2Pool {
    return {
      getConnection: (callback) => {
        this.connection(database).then(
          (connection) => callback(null, connection),
          (error: unknown) => callback(error as Error, undefined as unknown as PooledConnection),
        );
      },
      query: (sql, values, callback) => {
        this.query(sql, values as readonly unknown[], database).then(
          (raw) => callback(null, raw),
          (error: unknown) => callback(error as Error, undefined),
        );
      },
      end: (callback) => callback?.(null),
    };
  }
}

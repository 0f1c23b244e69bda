/** A MySQL/MariaDB server as the XA coordinator and resolver see it. */
export interface XaServer {
  /** The server's name (errors, events). */
  readonly name: string;
  /** The index of its first shard (in shard order): the server's id in transaction ids. */
  readonly id: number;
  /** The database of that shard, which holds the server's decision log. */
  readonly logDatabase: string;
  /** Runs one statement in autocommit mode on a connection of the server's pool; resolves to mysql2's raw result. */
  query(sql: string, parameters?: readonly unknown[]): Promise<unknown>;
}

/** `` `a`.`b` `` for MySQL. */
export function qualifiedName(database: string, table: string): string {
  return `\`${database.replace(/`/g, '``')}\`.\`${table.replace(/`/g, '``')}\``;
}

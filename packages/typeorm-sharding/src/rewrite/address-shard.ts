/**
 * Database-qualified table names (`shard_3`.`orders`) let a shard's statement run on any
 * connection of its server and share one round trip with the statements of the server's
 * other shards (see `coalesce.ts`, `tokens/qualify.ts`). A statement is qualified only when
 * every table it reads is known to be written so; any other statement runs on a connection
 * whose default database is the shard's (`servers/server-pool.ts`).
 */

/** Prefixes by database: a scattered read writes one per shard statement. */
const prefixes = new Map<string, string>();

/** What qualification writes before a table name: `` `database`. ``. */
export function databasePrefix(database: string): string {
  let prefix = prefixes.get(database);
  if (prefix === undefined) {
    prefix = `\`${database.replace(/`/g, '``')}\`.`;
    // Databases are configuration (a few per shard), but keep the map bounded all the same.
    if (prefixes.size > 4096) prefixes.clear();
    prefixes.set(database, prefix);
  }
  return prefix;
}

/**
 * The text as the shard's own database would have been sent it: the database prefixes
 * qualification wrote removed (they keep each table's spelling), for errors that quote the
 * statement as one database would.
 */
export function withoutDatabase(text: string, database: string): string {
  return text.split(databasePrefix(database)).join('');
}

/**
 * Which server each shard lives on. Real deployments keep many more logical shards than
 * servers (64 or 1,024 shard databases on a handful of MySQL hosts, so that a shard can move
 * without rehashing); the server is the unit of connection: one pool, one round trip and one
 * local transaction per server (PolarDB-X's data node).
 *
 * A server is named explicitly (`servers: [{ name, host, … }]`, `shards: [{ name, server,
 * database }]`) or inferred: shards whose connection options are identical but for the
 * database share one server. SQLite has no servers: each shard file is its own.
 */
import { ShardingConfigError } from '../errors/index.js';

/** Connection options as the user wrote them (TypeORM's, plus the shard's name and server). */
type Options = Readonly<Record<string, unknown>>;

/** One database server: the connection options of its pool (no database). */
export interface ServerSpec {
  readonly name: string;
  readonly index: number;
  /** TypeORM connection options of the server's pool: everything but `database`. */
  readonly options: Options;
}

/** One shard: its server and the database (or SQLite file) that holds its tables. */
export interface ShardSpec {
  readonly name: string;
  readonly index: number;
  /** Index into `Topology.servers`. */
  readonly server: number;
  /** The shard's database; undefined when the options name none (a single-database shard). */
  readonly database: string | undefined;
  /** TypeORM options of a DataSource of this shard alone (the server's plus the database). */
  readonly options: Options;
}

export interface Topology {
  readonly servers: readonly ServerSpec[];
  readonly shards: readonly ShardSpec[];
}

/** Options that say nothing about where a connection goes. */
const NOT_CONNECTION = new Set(['name', 'server', 'database']);
/**
 * Options that decide which server a connection reaches and as whom. Two shards that agree on
 * all of them share a pool; other options (pool size, timeouts, charset …) then come from the
 * first shard of the server and must not differ (checked).
 */
const IDENTITY = ['type', 'url', 'socketPath', 'host', 'port', 'username', 'password', 'ssl'] as const;

/**
 * Resolves servers and shards from the ShardedDataSource options.
 *
 * @param base the top-level options shared by all shards (TypeORM's, minus `shards`/`sharding`/`servers`)
 * @param shards the `shards` entries
 * @param servers the `servers` entries, when given
 */
export function resolveTopology(base: Options, shards: readonly Options[], servers: readonly Options[] | undefined, dialect: 'mysql' | 'sqlite'): Topology {
  if (dialect === 'sqlite') {
    if (servers !== undefined) throw new ShardingConfigError('`servers` is for MySQL/MariaDB; on SQLite every shard is a database file of its own.');
    return {
      servers: shards.map((shard, index) => ({ name: String(shard.name), index, options: { ...base, ...withoutKeys(shard, NOT_CONNECTION) } })),
      shards: shards.map((shard, index) => ({ name: String(shard.name), index, server: index, database: stringOrUndefined(shard.database ?? base.database), options: { ...base, ...withoutKeys(shard, ['name']) } })),
    };
  }
  return servers === undefined ? inferred(base, shards) : explicit(base, shards, servers);
}

function explicit(base: Options, shards: readonly Options[], servers: readonly Options[]): Topology {
  if (!Array.isArray(servers) || servers.length === 0) throw new ShardingConfigError('`servers` must list at least one server ({ name, host, port, … }).');
  const byName = new Map<string, number>();
  const specs = servers.map((server, index): ServerSpec => {
    const name = server.name;
    if (typeof name !== 'string' || name.trim() === '') throw new ShardingConfigError(`servers[${index}] needs a non-empty \`name\`; got ${JSON.stringify(name)}.`);
    if (byName.has(name)) throw new ShardingConfigError(`Server name "${name}" is used twice; server names must be unique.`);
    if ('database' in server) throw new ShardingConfigError(`servers[${index}] ("${name}") names a database: a server holds the databases of its shards; give each shard its \`database\`.`);
    byName.set(name, index);
    return { name, index, options: { ...withoutKeys(base, NOT_CONNECTION), ...withoutKeys(server, NOT_CONNECTION) } };
  });
  const seen = new Set<string>();
  const resolved = shards.map((shard, index): ShardSpec => {
    const serverName = shard.server;
    if (typeof serverName !== 'string') {
      throw new ShardingConfigError(`Shard "${String(shard.name)}" needs \`server\`: one of ${specs.map((s) => `"${s.name}"`).join(', ')} (with \`servers\` every shard names its server).`, { shard: String(shard.name) });
    }
    const server = byName.get(serverName);
    if (server === undefined) {
      throw new ShardingConfigError(`Shard "${String(shard.name)}" names server "${serverName}", which \`servers\` does not list; servers are: ${specs.map((s) => `"${s.name}"`).join(', ')}.`, { shard: String(shard.name) });
    }
    const connectionKeys = Object.keys(shard).filter((k) => !NOT_CONNECTION.has(k));
    if (connectionKeys.length > 0) {
      throw new ShardingConfigError(`Shard "${String(shard.name)}" sets ${connectionKeys.map((k) => `\`${k}\``).join(', ')}: with \`servers\`, connection options belong to the server; a shard has only \`name\`, \`server\` and \`database\`.`, { shard: String(shard.name) });
    }
    const database = requireDatabase(shard, specs[server]!.name, seen);
    return { name: String(shard.name), index, server, database, options: { ...specs[server]!.options, database } };
  });
  return { servers: specs, shards: resolved };
}

function inferred(base: Options, shards: readonly Options[]): Topology {
  const servers: ServerSpec[] = [];
  const keys: string[] = [];
  const firstShard: string[] = [];
  const seen = new Set<string>();
  const resolved = shards.map((shard, index): ShardSpec => {
    const options = { ...base, ...withoutKeys(shard, ['name']) };
    const key = JSON.stringify(IDENTITY.map((k) => options[k] ?? null));
    let server = keys.indexOf(key);
    const serverOptions = withoutKeys(options, NOT_CONNECTION);
    if (server < 0) {
      server = servers.length;
      keys.push(key);
      firstShard.push(String(shard.name));
      servers.push({ name: serverNameOf(options, servers), index: server, options: serverOptions });
    } else {
      const differing = Object.keys({ ...serverOptions, ...servers[server]!.options }).filter((k) => JSON.stringify(serverOptions[k]) !== JSON.stringify(servers[server]!.options[k]));
      if (differing.length > 0) {
        throw new ShardingConfigError(
          `Shard "${String(shard.name)}" reaches the same server as shard "${firstShard[server]}" but sets ${differing.map((k) => `\`${k}\``).join(', ')} differently; shards of one server share one pool: give them the same options, or name the servers in \`servers\`.`,
          { shard: String(shard.name) },
        );
      }
    }
    const database = stringOrUndefined(options.database);
    if (database !== undefined) {
      const where = `${server}/${database}`;
      if (seen.has(where)) throw new ShardingConfigError(`Shard "${String(shard.name)}" uses database "${database}" of server ${servers[server]!.name}, as another shard does; each shard needs a database of its own.`, { shard: String(shard.name) });
      seen.add(where);
    }
    return { name: String(shard.name), index, server, database, options };
  });
  return { servers, shards: resolved };
}

function requireDatabase(shard: Options, server: string, seen: Set<string>): string {
  const database = shard.database;
  if (typeof database !== 'string' || database === '') throw new ShardingConfigError(`Shard "${String(shard.name)}" needs \`database\`: the database that holds its tables on server "${server}".`, { shard: String(shard.name) });
  const where = `${server}/${database}`;
  if (seen.has(where)) throw new ShardingConfigError(`Shard "${String(shard.name)}" uses database "${database}" of server "${server}", as another shard does; each shard needs a database of its own.`, { shard: String(shard.name) });
  seen.add(where);
  return database;
}

/** `host:port` (or the socket / URL), numbered when one address serves several users. */
function serverNameOf(options: Options, existing: readonly ServerSpec[]): string {
  const address =
    typeof options.url === 'string' ? redactedUrl(options.url) : typeof options.socketPath === 'string' ? options.socketPath : `${String(options.host ?? 'localhost')}:${String(options.port ?? 3306)}`;
  const taken = existing.filter((s) => s.name === address || s.name.startsWith(`${address}#`)).length;
  return taken === 0 ? address : `${address}#${taken + 1}`;
}

/** A connection URL without its credentials (server names appear in errors and metrics). */
function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '3306'}`;
  } catch {
    return 'url';
  }
}

function withoutKeys(options: Options, keys: Iterable<string>): Record<string, unknown> {
  const drop = new Set(keys);
  return Object.fromEntries(Object.entries(options).filter(([k]) => !drop.has(k)));
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

import { RouterConfigError } from '../errors.js';
import { NO_PASSWORD, type Secret } from '../secret.js';
import type { NodeConfig, NodeRole } from '../topology.js';
import { childPath, Fields, type ConfigContext } from './fields.js';

/** Keys of a node definition. `username` is TypeORM's spelling of `user`. */
export const NODE_KEYS = ['name', 'host', 'port', 'user', 'username', 'password', 'poolSize', 'weight', 'database'] as const;

/** A node definition before it is placed in a server (no role yet). */
export interface NodeDefinition {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: Secret;
  readonly poolSize: number;
  readonly weight: number;
  readonly database: string | undefined;
  /** Where it was defined, for error messages. */
  readonly path: string;
}

/** Connection defaults every node inherits (`defaults:` in the file). */
export type NodeDefaults = Omit<NodeDefinition, 'name' | 'path' | 'host'> & { readonly host: string | undefined };

export const BUILT_IN_DEFAULTS: NodeDefaults = {
  host: undefined,
  port: 3306,
  user: 'root',
  password: NO_PASSWORD,
  poolSize: 10,
  weight: 1,
  database: undefined,
};

/** Reads `defaults:` (every key of a node but `name`). */
export function readNodeDefaults(value: unknown, path: string, ctx: ConfigContext): NodeDefaults {
  const f = Fields.of(value, path, ctx, NODE_KEYS.filter((k) => k !== 'name'));
  const d = readConnection(f, BUILT_IN_DEFAULTS);
  return { ...d, host: f.optionalString('host') };
}

/** Reads one node definition; `name` comes from the key it is defined under, or its own `name`. */
export function readNodeDefinition(value: unknown, path: string, ctx: ConfigContext, defaults: NodeDefaults, nameFromKey?: string): NodeDefinition {
  const f = Fields.of(value, path, ctx, NODE_KEYS);
  const name = f.optionalString('name') ?? nameFromKey;
  if (name === undefined) throw new RouterConfigError(childPath(path, 'name'), 'a node defined inline needs a name');
  if (nameFromKey !== undefined && name !== nameFromKey) throw new RouterConfigError(childPath(path, 'name'), `differs from the key it is defined under (${nameFromKey})`);
  const host = f.optionalString('host') ?? defaults.host;
  if (host === undefined) throw new RouterConfigError(childPath(path, 'host'), 'missing (set it here or in `defaults`)');
  return { ...readConnection(f, defaults), name, host, path };
}

function readConnection(f: Fields, defaults: NodeDefaults): Omit<NodeDefinition, 'name' | 'path' | 'host'> {
  if (f.has('user') && f.has('username')) throw new RouterConfigError(f.at('username'), 'give either `user` or `username`, not both');
  return {
    port: f.number('port', defaults.port, { integer: true, min: 1, max: 65535 }),
    user: f.optionalString('user') ?? f.optionalString('username') ?? defaults.user,
    password: f.secret('password', defaults.password),
    poolSize: f.number('poolSize', defaults.poolSize, { integer: true, min: 1 }),
    weight: f.number('weight', defaults.weight, { min: 0 }),
    database: f.optionalString('database') ?? defaults.database,
  };
}

/** The node as placed in a server, with its role. */
export function placeNode(def: NodeDefinition, role: NodeRole, server: string): NodeConfig {
  return Object.freeze({
    name: def.name,
    role,
    server,
    host: def.host,
    port: def.port,
    user: def.user,
    password: def.password,
    poolSize: def.poolSize,
    weight: def.weight,
    database: def.database,
  });
}

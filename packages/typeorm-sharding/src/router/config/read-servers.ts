import { RouterConfigError } from '../errors.js';
import { BALANCER_NAMES, type NodeConfig, type NodeRole, type ServerConfig } from '../topology.js';
import { isPlainObject } from './env-references.js';
import { childPath, Fields, type ConfigContext } from './fields.js';
import { placeNode, readNodeDefinition, type NodeDefaults, type NodeDefinition } from './read-nodes.js';

/** Keys of a server block: the article's `routing` block (`master`, `slave`, `columnar`) plus a name. */
export const SERVER_KEYS = ['name', 'master', 'slave', 'columnar'] as const;

/** Nodes defined by name under `nodes:`, and the names used so far (a node serves one role on one server). */
export interface NodeRegistry {
  readonly defined: ReadonlyMap<string, NodeDefinition>;
  readonly defaults: NodeDefaults;
  readonly used: Map<string, string>;
}

/**
 * Reads one server. `f` holds at least the article's three role blocks:
 * `master: { nodes: [one] }`, `slave: { nodes, loadBalance }`, `columnar: { nodes, enable, loadBalance }`.
 */
export function readServer(f: Fields, name: string, registry: NodeRegistry): ServerConfig {
  if (!f.has('master')) throw new RouterConfigError(f.at('master'), 'missing: a server needs `master: { nodes: [<node>] }`');
  const master = f.child('master', ['nodes'])!;
  const primaries = readRoleNodes(master, 'primary', name, registry);
  if (primaries.length !== 1) throw new RouterConfigError(master.at('nodes'), `expected exactly one primary node, got ${primaries.length}`);

  const slave = f.child('slave', ['nodes', 'loadBalance']);
  const replicas = slave ? readRoleNodes(slave, 'replica', name, registry) : [];
  const columnar = f.child('columnar', ['nodes', 'enable', 'loadBalance']);
  const analyticsEnabled = columnar?.boolean('enable', true) ?? false;
  const analytics = columnar && analyticsEnabled ? readRoleNodes(columnar, 'analytics', name, registry) : [];
  return Object.freeze({
    name,
    primary: primaries[0]!,
    replicas: Object.freeze(replicas),
    analytics: Object.freeze(analytics),
    replicaBalancer: slave?.oneOf('loadBalance', BALANCER_NAMES, 'load_score') ?? 'load_score',
    analyticsBalancer: columnar?.oneOf('loadBalance', BALANCER_NAMES, 'least_outstanding') ?? 'least_outstanding',
  });
}

function readRoleNodes(f: Fields, role: NodeRole, server: string, registry: NodeRegistry): NodeConfig[] {
  const items = f.list('nodes');
  if (items === undefined) throw new RouterConfigError(f.at('nodes'), 'missing: list the nodes by name or define them inline');
  return items.map((item, i) => {
    const path = childPath(f.at('nodes'), i);
    let def: NodeDefinition;
    if (typeof item === 'string') {
      const found = registry.defined.get(item);
      if (!found) {
        const known = [...registry.defined.keys()];
        throw new RouterConfigError(path, `unknown node \`${item}\` (${known.length === 0 ? 'no nodes are defined under `nodes`' : `defined nodes: ${known.join(', ')}`})`);
      }
      def = found;
    } else if (isPlainObject(item)) {
      def = readNodeDefinition(item, path, f.ctx, registry.defaults);
      if (registry.defined.has(def.name)) throw new RouterConfigError(childPath(path, 'name'), `node \`${def.name}\` is already defined under \`nodes\``);
    } else {
      throw new RouterConfigError(path, 'expected a node name or a node definition');
    }
    const previous = registry.used.get(def.name);
    if (previous !== undefined) throw new RouterConfigError(path, `node \`${def.name}\` is already used at ${previous}: a node has one role on one server`);
    registry.used.set(def.name, path);
    return placeNode(def, role, server);
  });
}

/** Reads the `nodes:` mapping (name → definition). */
export function readNodeMap(value: unknown, path: string, ctx: ConfigContext, defaults: NodeDefaults): Map<string, NodeDefinition> {
  if (!isPlainObject(value)) throw new RouterConfigError(path, 'expected a mapping of node name to connection');
  const out = new Map<string, NodeDefinition>();
  for (const [name, def] of Object.entries(value)) out.set(name, readNodeDefinition(def, childPath(path, name), ctx, defaults, name));
  return out;
}

/** Reads `servers:` (a list of server blocks, each with a `name`). */
export function readServerList(items: readonly unknown[], path: string, ctx: ConfigContext, registry: NodeRegistry): ServerConfig[] {
  const names = new Set<string>();
  return items.map((item, i) => {
    const f = Fields.of(item, childPath(path, i), ctx, SERVER_KEYS);
    const name = f.optionalString('name');
    if (name === undefined) throw new RouterConfigError(f.at('name'), 'missing: every server needs a name');
    if (names.has(name)) throw new RouterConfigError(f.at('name'), `server \`${name}\` is defined twice`);
    names.add(name);
    return readServer(f, name, registry);
  });
}

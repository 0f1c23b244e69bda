/*
 * The mover's view of the topology store (src/topology owns it): the current document is the
 * row of tsh_topology with MAX(version); a new version goes through `publishTopology`, which
 * validates it (every bucket once, known servers, shared shards unmoved) and refuses a version
 * someone else published first (TopologyConflictError); `complete` reads tsh_topology_clients.
 */
import type { Connection } from 'mysql2/promise';
import { publishTopology } from '../data-source/publish-topology.js';
import type { ShardedDataSource } from '../data-source/sharded-data-source.js';
import { ReshardingError } from './errors.js';
import { quoteId, rows } from './endpoint.js';
import type { Placement } from './move-plan.js';

/** What the workflow needs of the topology store. */
export interface TopologyPort {
  /** The current placement (highest version). */
  current(): Promise<Placement>;
  /** Publishes `next` (its version must be current + 1). */
  publish(next: Placement, comment: string): Promise<void>;
  /** Clients seen within `withinMs` whose adopted version is below `version`. */
  clientsBehind(version: number, withinMs: number): Promise<{ readonly clientId: string; readonly version: number }[]>;
}

/**
 * The port over the store's tables in `database` (on the metadata server); `servers` are the
 * server names a published document may use. With `ds`, versions are published through the
 * data source (validated against its servers and adopted by it at once).
 */
export function sqlTopologyPort(conn: Connection, database: string, servers: readonly string[], ds?: ShardedDataSource): TopologyPort {
  const t = (name: string): string => `${quoteId(database)}.${quoteId(name)}`;
  return {
    async current() {
      const [row] = await rows<{ document: string }>(conn, `SELECT document FROM ${t('tsh_topology')} ORDER BY version DESC LIMIT 1`);
      if (!row) throw new ReshardingError('bad-plan', `No topology in ${database}.tsh_topology: initialise a ShardedDataSource with sharding.topology first.`);
      return JSON.parse(row.document) as Placement;
    },
    async publish(next, comment) {
      if (ds) await ds.publishTopology(next, comment);
      else await publishTopology(conn, next, comment, { database, servers });
    },
    async clientsBehind(version, withinMs) {
      const list = await rows<{ client_id: string; version: number | string }>(
        conn,
        `SELECT client_id, version FROM ${t('tsh_topology_clients')} WHERE version < ? AND seen_at >= NOW(6) - INTERVAL ? MICROSECOND`,
        [version, Math.round(withinMs * 1000)],
      );
      return list.map((r) => ({ clientId: r.client_id, version: Number(r.version) }));
    },
  };
}

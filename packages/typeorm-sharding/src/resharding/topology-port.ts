/*
 * The mover's view of the topology store. The store itself (tsh_topology, tsh_topology_clients,
 * publishTopology) belongs to src/topology; until its publishing API is on this branch, this
 * thin adapter reads and writes those tables exactly as their contract defines them (the
 * current topology is the row with MAX(version); a new version is a plain INSERT of version+1,
 * so a duplicate key means someone else published first).
 */
import type { Connection } from 'mysql2/promise';
import { validateBucketMap } from '../algorithms/index.js';
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

/** The adapter over the contract's tables in `database` (on the metadata server). */
export function sqlTopologyPort(conn: Connection, database: string): TopologyPort {
  const t = (name: string): string => `${quoteId(database)}.${quoteId(name)}`;
  return {
    async current() {
      const [row] = await rows<{ document: string }>(conn, `SELECT document FROM ${t('tsh_topology')} ORDER BY version DESC LIMIT 1`);
      if (!row) throw new ReshardingError('bad-plan', `No topology in ${database}.tsh_topology: initialise a ShardedDataSource with sharding.topology first.`);
      return JSON.parse(row.document) as Placement;
    },
    async publish(next, comment) {
      validateBucketMap(next.bucketMap, next.shards.map((s) => s.name), next.bucketCount);
      try {
        await conn.query(`INSERT INTO ${t('tsh_topology')} (version, document, comment) VALUES (?, ?, ?)`, [next.version, JSON.stringify(next), comment.slice(0, 255)]);
      } catch (error) {
        if ((error as { errno?: number }).errno === 1062) throw new ReshardingError('bad-state', `Topology version ${next.version} was published by someone else first.`, { cause: error });
        throw error;
      }
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

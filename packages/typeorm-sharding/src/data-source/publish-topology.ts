import { TopologyStore } from '../topology/topology-store.js';
import type { TopologyDocument } from '../topology/topology-document.js';
import type { SqlConnection } from '../topology/sql-connection.js';
import { ShardedDataSource } from './sharded-data-source.js';

/** Options of {@link publishTopology} with a plain connection. */
export interface PublishTopologyOptions {
  /** The database of the metadata tables. @default 'typeorm_sharding_meta' */
  readonly database?: string;
  /** Server names a shard may name besides those of the current version (e.g. a new server). */
  readonly servers?: readonly string[];
}

/**
 * Publishes `document` as the next topology version (a plain INSERT of version + 1; its
 * `version` must be the current one + 1). With a ShardedDataSource: validated against its
 * servers, then adopted by it at once. With a MySQL/MariaDB connection to the store server: the
 * known servers are those of the current version plus `options.servers`. Refused with
 * `TopologyDocumentError` when a bucket is owned by no shard or by two, or a shard is on an
 * unknown server; `TopologyConflictError` when another process published that version first.
 */
export async function publishTopology(target: ShardedDataSource | SqlConnection, document: TopologyDocument, comment?: string, options: PublishTopologyOptions = {}): Promise<void> {
  if (target instanceof ShardedDataSource) return target.publishTopology(document, comment);
  const store = new TopologyStore(target, 'mysql', options.database);
  const current = await store.current();
  const servers = [...new Set([...(current?.document.shards.map((s) => s.server) ?? []), ...(options.servers ?? [])])];
  await store.publish(document, comment, servers);
}

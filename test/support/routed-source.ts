import 'reflect-metadata';
import { Column, Entity, PrimaryColumn, type Logger } from 'typeorm';
import { ShardedDataSource, Sharded, ShardKey, type PhysicalQueryEvent, type ServerOptions, type ShardingRouterOptions } from '../../packages/typeorm-sharding/src/index.js';
import type { ClusterNode, MariadbCluster } from './mariadb-cluster.js';

/** The rows of the router tests: hash-sharded by id over SHARDS databases of the cluster's primary. */
@Entity('items')
@Sharded()
export class Item {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column('varchar', { length: 40 }) v!: string;
}

export const SHARDS = 4;
/** Rows 1..SEEDED exist on every node once `seed` has run. */
export const SEEDED = 64;

/** A ShardedDataSource over a cluster, with what the tests read of it. */
export interface RoutedSource {
  readonly ds: ShardedDataSource;
  /** Every physical statement, as `onPhysicalQuery` reported it. */
  readonly events: PhysicalQueryEvent[];
  /** `logger.log('warn', …)` lines (hint problems, overridden hints). */
  readonly warnings: string[];
  /** The misroute counter (writes that reached a replica), read from the router's metrics. */
  misroutes(): Promise<number>;
  close(): Promise<void>;
}

/** Creates the shard databases on the primary (they replicate) once per cluster. */
export async function createShardDatabases(cluster: MariadbCluster, prefix: string): Promise<void> {
  await cluster.sql(cluster.primary, ...Array.from({ length: SHARDS }, (_, i) => `CREATE DATABASE ${prefix}_${i}`));
}

/** Opens a ShardedDataSource whose one server `db` is the cluster's primary, with `server` added to its entry (replicas …). */
export async function openRouted(cluster: MariadbCluster, prefix: string, server: Partial<ServerOptions>, router: ShardingRouterOptions = {}, extra: Record<string, unknown> = {}): Promise<RoutedSource> {
  const events: PhysicalQueryEvent[] = [];
  const warnings: string[] = [];
  const logger: Logger = {
    logQuery: () => undefined,
    logQueryError: () => undefined,
    logQuerySlow: () => undefined,
    logSchemaBuild: () => undefined,
    logMigration: () => undefined,
    log: (level, message) => void (level === 'warn' && warnings.push(String(message))),
  };
  const ds = new ShardedDataSource({
    type: 'mariadb',
    entities: [Item],
    synchronize: true,
    logger,
    servers: [{ name: 'db', host: '127.0.0.1', port: cluster.primary.port, username: 'root', password: '', poolSize: 4, ...server }],
    shards: Array.from({ length: SHARDS }, (_, i) => ({ name: `s${i}`, server: 'db', database: `${prefix}_${i}` })),
    sharding: { router, onPhysicalQuery: (e) => events.push(e) },
    ...extra,
  });
  await ds.initialize();
  return {
    ds,
    events,
    warnings,
    misroutes: () => misroutesOf(ds),
    close: () => ds.destroy(),
  };
}

/** The misroute counter of a data source's router. */
export async function misroutesOf(ds: ShardedDataSource): Promise<number> {
  const m = (await ds.routerMetrics.registry.getMetricsAsJSON()).find((x) => x.name === 'typeorm_sharding_router_misroutes_total');
  return (m?.values ?? []).reduce((sum, v) => sum + v.value, 0);
}

/** The replicas of the cluster as `servers[0].replicas` entries. */
export function replicasOf(cluster: MariadbCluster, nodes: readonly ClusterNode[] = cluster.replicas) {
  return nodes.map((r) => ({ name: r.name, port: r.port }));
}

/** Waits until every running replica has applied everything the primary has written (MASTER_GTID_WAIT). */
export async function caughtUp(cluster: MariadbCluster, replicas: readonly ClusterNode[] = cluster.replicas): Promise<void> {
  const [[{ pos }]] = (await cluster.sql(cluster.primary, 'SELECT @@gtid_binlog_pos AS pos')) as [[{ pos: string }]];
  for (const r of replicas) {
    const [[{ reached }]] = (await cluster.sql(r, `SELECT MASTER_GTID_WAIT('${pos}', 20) AS reached`)) as [[{ reached: number }]];
    if (Number(reached) !== 0) throw new Error(`replica ${r.name} did not reach ${pos}`);
  }
}

/** Polls `predicate` every 50 ms until it holds; throws after `timeoutMs`. */
export async function waitFor(what: string, predicate: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Connections of clients still open on a node (replication threads and the asking connection excluded). */
export async function clientConnections(cluster: MariadbCluster, node: ClusterNode): Promise<number> {
  const [rows] = (await cluster.sql(
    node,
    "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND USER <> 'system user' AND COMMAND NOT IN ('Binlog Dump', 'Binlog Dump GTID', 'Daemon', 'Slave_IO', 'Slave_SQL', 'Slave_worker')",
  )) as [{ n: number }[]];
  return Number(rows[0]!.n);
}

/** Counts the node names of events. */
export function countNodes(events: readonly PhysicalQueryEvent[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of events) out[e.node ?? '?'] = (out[e.node ?? '?'] ?? 0) + 1;
  return out;
}

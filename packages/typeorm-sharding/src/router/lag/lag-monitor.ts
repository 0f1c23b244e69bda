import type { MonitorConnections } from '../monitor-connections.js';
import type { NodeState } from '../node-state.js';
import type { ServerState } from '../server-state.js';
import { mergePositions, parseGtidPosition, type GtidPosition } from './gtid.js';
import { combinedLagMs } from './lag-estimate.js';
import { readReplicaStatus } from './replica-status.js';

/** What one lag check found about a replica. */
export interface LagReading {
  readonly node: NodeState;
  /** Undefined when the node's replication state could not be read: see `failure`. */
  readonly lagMs: number | undefined;
  /** The node answers but is not replicating from anything (`SHOW REPLICA STATUS` is empty). */
  readonly notReplicating: boolean;
  /** Why the lag is unknown (the error of `SHOW REPLICA STATUS` or of the position query); the node is then out of rotation. */
  readonly failure?: unknown;
}

/**
 * The warning for a replica whose lag could not be read: names the privilege when the server
 * refused it (MariaDB's `SLAVE MONITOR`, MySQL's `REPLICATION CLIENT`), else the error's code.
 */
export function lagUnknownWarning(server: string, node: string, failure: unknown): string {
  const { errno, code } = (failure ?? {}) as { errno?: unknown; code?: unknown };
  const what = `The replication lag of node ${node} of server ${server} is unknown`;
  const effect = 'it gets no reads (an unknown lag is never taken for caught up) until a lag check succeeds.';
  if (errno === 1227 || errno === 1142 || errno === 1044 || code === 'ER_SPECIFIC_ACCESS_DENIED_ERROR') {
    return `${what}: SHOW REPLICA STATUS was refused (${String(code ?? errno)}). Grant the router's user the SLAVE MONITOR privilege (MariaDB ≥ 10.5; REPLICATION CLIENT on MySQL and older MariaDB): GRANT SLAVE MONITOR ON *.* TO …; ${effect}`;
  }
  return `${what}: its lag check failed (${String(code ?? errno ?? (failure as Error | undefined)?.message ?? 'unknown error')}); ${effect}`;
}

/**
 * One lag check of a server (the article's §3.3): the primary's `@@gtid_binlog_pos`, then per
 * replica that is up `SHOW REPLICA STATUS` (`Seconds_Behind_Master`, thread states) and its
 * applied `@@gtid_slave_pos`. The lag is the larger of `Seconds_Behind_Master` and the age of the
 * oldest primary position the replica has not applied (see `PrimaryPositions`). A node that is
 * not replicating at all gets an infinite lag: it would serve arbitrarily stale reads.
 */
export async function checkLag(server: ServerState, monitor: MonitorConnections, now: () => number): Promise<LagReading[]> {
  if (server.primary.health.isUp) {
    try {
      const at = now();
      const rows = await monitor.query(server.primary.config, 'SELECT @@global.gtid_binlog_pos AS pos');
      server.notePolledPosition(at, parseGtidPosition(String((rows[0] as { pos?: unknown } | undefined)?.pos ?? '')));
    } catch {
      // The primary's heartbeat reports it; replicas are measured against the positions known so far.
    }
  }
  const readings: LagReading[] = [];
  for (const node of [...server.replicas, ...server.analytics]) {
    if (!node.health.isUp) continue;
    readings.push(await readReplica(server, node, monitor, now));
  }
  return readings;
}

async function readReplica(server: ServerState, node: NodeState, monitor: MonitorConnections, now: () => number): Promise<LagReading> {
  try {
    const status = readReplicaStatus(await monitor.query(node.config, 'SHOW REPLICA STATUS'));
    const rows = await monitor.query(node.config, 'SELECT @@global.gtid_slave_pos AS pos');
    const applied: GtidPosition = parseGtidPosition(String((rows[0] as { pos?: unknown } | undefined)?.pos ?? ''));
    node.appliedPosition = node.appliedPosition === undefined ? applied : mergePositions(node.appliedPosition, applied);
    node.lagUnknown = false;
    if (status === undefined) {
      node.lagMs = Infinity;
      return { node, lagMs: Infinity, notReplicating: true };
    }
    node.lagMs = combinedLagMs(server.primaryPositions.lagMs(applied, now()), status.secondsBehind);
    return { node, lagMs: node.lagMs, notReplicating: false };
  } catch (failure) {
    node.lagUnknown = true;
    return { node, lagMs: undefined, notReplicating: false, failure };
  }
}

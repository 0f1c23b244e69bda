import type { NodeConfig } from '../topology.js';
import type { MonitorConnections } from '../monitor-connections.js';
import type { HeartbeatProbe } from './heartbeat-monitor.js';

/**
 * The article's TCP + SQL heartbeat: `SELECT 1` on a monitoring connection of the node's own.
 * The TCP half is that connection's socket: when it is closed the beat first reconnects (a TCP
 * connect and the protocol handshake, bounded by the heartbeat timeout), so a dead process or
 * host fails at once with the socket error (`ECONNREFUSED`, `ETIMEDOUT`, …), and a live socket
 * whose server does not answer SQL fails by timeout. A bare TCP connect that closes before the
 * handshake is not used: the server counts it as an aborted connection, and after
 * `max_connect_errors` (100) of them blocks the router's host.
 *
 * The monitoring connection is separate from the node's pool, so a saturated pool never makes
 * a healthy node look dead; it is dropped after any failure so the next beat reconnects.
 */
export function mysqlHeartbeat(connections: MonitorConnections): HeartbeatProbe {
  return async (node: NodeConfig) => {
    const started = performance.now();
    await connections.query(node, 'SELECT 1');
    return performance.now() - started;
  };
}

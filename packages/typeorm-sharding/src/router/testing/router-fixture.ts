import { readRouterConfig } from '../config/read-config.js';
import type { MonitorConnections } from '../monitor-connections.js';
import type { RouterConfig } from '../router-options.js';
import type { NodeConfig } from '../topology.js';

/**
 * One server `main`: primary `p`, replicas `r1`, `r2`, optionally analytics `a1`; any router
 * options given as in the YAML file (`routing`, `healthCheck`, `warmUp`, `loadScore` keys).
 */
export function testConfig(extra: Record<string, unknown> = {}, withAnalytics = false, balancer = 'round_robin'): RouterConfig {
  const { routing, ...rest } = extra as { routing?: Record<string, unknown> };
  return readRouterConfig({
    defaults: { host: '127.0.0.1' },
    nodes: { p: { port: 1 }, r1: { port: 2 }, r2: { port: 3 }, ...(withAnalytics ? { a1: { port: 4 } } : {}) },
    routing: {
      master: { nodes: ['p'] },
      slave: { nodes: ['r1', 'r2'], loadBalance: balancer },
      ...(withAnalytics ? { columnar: { nodes: ['a1'] } } : {}),
      ...routing,
    },
    ...rest,
  });
}

/** A scripted MonitorConnections: answers per node and statement prefix, records every call. */
export class FakeMonitor implements MonitorConnections {
  readonly calls: { node: string; sql: string }[] = [];
  private readonly answers = new Map<string, (sql: string) => unknown[]>();

  /** Answers statements on `node` with `answer` (throw from it to fail). */
  on(node: string, answer: (sql: string) => unknown[]): this {
    this.answers.set(node, answer);
    return this;
  }

  async query(node: NodeConfig, sql: string): Promise<unknown[]> {
    this.calls.push({ node: node.name, sql });
    const answer = this.answers.get(node.name);
    if (answer === undefined) throw Object.assign(new Error(`connect ECONNREFUSED (${node.name})`), { code: 'ECONNREFUSED' });
    return answer(sql);
  }

  async close(): Promise<void> {}
}

/** A replica's answers: replicating with `secondsBehind`, having applied `applied`. */
export function replicaAnswers(state: { secondsBehind: number | null; applied: string; running?: boolean }): (sql: string) => unknown[] {
  return (sql) => {
    if (sql.startsWith('SHOW REPLICA STATUS')) {
      const yes = state.running === false ? 'No' : 'Yes';
      return [{ Slave_IO_Running: yes, Slave_SQL_Running: yes, Seconds_Behind_Master: state.secondsBehind, Last_SQL_Error: '', Last_IO_Error: '' }];
    }
    if (sql.includes('gtid_slave_pos')) return [{ pos: state.applied }];
    if (sql === 'SELECT 1') return [{ 1: 1 }];
    return [];
  };
}

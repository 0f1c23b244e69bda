import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { NodeUnavailableError } from '../../router/errors.js';
import { QueryRouter } from '../../router/query-router.js';
import type { StatementDescriptor } from '../../router/statement.js';
import { FakeMonitor, testConfig } from '../../router/testing/router-fixture.js';
import type { NodeConfig } from '../../router/topology.js';
import { ServerPool, type Mysql2Pool } from '../../servers/server-pool.js';
import type { NodePlacement } from './node-placement.js';
import { ServerNodes } from './server-nodes.js';

// Faults a real server cannot be made to produce on cue (a connection lost after the second
// row of a stream, a refusal on the first try only), on scripted pools; the real-server
// scenarios are in test/router-datasource.test.ts and test/router-failover.test.ts.

const READ: StatementDescriptor = { kind: 'select', shapeKey: 'SELECT * FROM `t` WHERE `id` = ?' };
const WRITE: StatementDescriptor = { kind: 'insert', shapeKey: 'INSERT INTO `t` VALUES (?)' };
const lost = () => Object.assign(new Error('Connection lost: The server closed the connection.'), { code: 'PROTOCOL_CONNECTION_LOST', fatal: true });
const refused = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', fatal: true });
const noTable = () => Object.assign(new Error("Table 'x.t' doesn't exist"), { code: 'ER_NO_SUCH_TABLE', errno: 1146, sqlState: '42S02' });

/** How a node's pool behaves: a refused connection, a failed statement, or rows (a stream may fail after `failAfter` rows). */
interface Script {
  refuse?: boolean;
  fail?: () => Error;
  rows?: number;
  failAfter?: number;
}

function harness(scripts: Record<string, Script>) {
  const log: string[] = [];
  const pool = (name: string): Mysql2Pool => ({
    getConnection: (callback) => {
      const script = scripts[name] ?? {};
      if (script.refuse) return callback(refused(), undefined as never);
      const connection = {
        query: (sql: unknown, values: unknown, cb?: (error: Error | null, raw: unknown) => void) => {
          log.push(`${name}: ${String(sql)}`);
          if (cb) {
            setImmediate(() => (script.fail ? cb(script.fail(), undefined) : cb(null, [{ node: name }])));
            return undefined;
          }
          const rows = Array.from({ length: script.rows ?? 3 }, (_, i) => ({ node: name, i }));
          return {
            stream: () =>
              Readable.from(
                (async function* () {
                  for (const [i, row] of rows.entries()) {
                    if (script.failAfter === i) throw lost();
                    yield row;
                  }
                })(),
              ),
          };
        },
        release: () => log.push(`${name}: release`),
        destroy: () => log.push(`${name}: destroy`),
      };
      callback(null, connection as never);
    },
    query: () => undefined,
    end: (cb) => cb?.(null),
  });
  const router = new QueryRouter(testConfig(), { monitor: new FakeMonitor(), warn: () => undefined });
  const pools = new Map(['p', 'r1', 'r2'].map((n) => [n, pool(n)]));
  const nodes = new ServerNodes('default', router, new ServerPool('default', () => pools.get('p')!), (node: NodeConfig) => pools.get(node.name)!, undefined);
  const placements: NodePlacement[] = [];
  const placed = (p: NodePlacement) => void placements.push(p);
  const rowsOf = async (statement = READ) => {
    const out: unknown[] = [];
    for await (const row of nodes.rows('SELECT 1', [], undefined, statement, 'slave', placed)) out.push(row);
    return out;
  };
  const retries = async () => ((await router.metrics.registry.getMetricsAsJSON()).find((m) => m.name === 'typeorm_sharding_router_retries_total')?.values ?? []).reduce((n, v) => n + v.value, 0);
  return { router, nodes, log, placements, placed, rowsOf, retries };
}

describe('ServerNodes: a statement on the node the router picks', () => {
  it('retries a read once on another node after a connection error, and throws the broken connection away', async () => {
    const h = harness({ r1: { fail: lost } });
    expect(await h.nodes.query('SELECT 1', [], undefined, READ, 'slave', h.placed)).toEqual([{ node: 'r2' }]);
    expect(h.placements).toEqual([expect.objectContaining({ node: 'r2', role: 'replica', fallback: 'retry' })]);
    expect(h.log).toContain('r1: destroy');
    expect(h.log).not.toContain('r1: release');
    expect(await h.retries()).toBe(1);
  });

  it('retries a read whose node refuses the connection', async () => {
    const h = harness({ r1: { refuse: true } });
    expect(await h.nodes.query('SELECT 1', [], undefined, READ, 'slave')).toEqual([{ node: 'r2' }]);
  });

  it('never retries an SQL error: the same statement would fail on every node', async () => {
    const h = harness({ r1: { fail: noTable }, r2: { fail: noTable } });
    await expect(h.nodes.query('SELECT 1', [], undefined, READ, 'slave', h.placed)).rejects.toMatchObject({ errno: 1146 });
    expect(h.log.filter((l) => l.includes('SELECT'))).toEqual(['r1: SELECT 1']);
    expect(h.placements).toEqual([expect.objectContaining({ node: 'r1', fallback: undefined })]);
    expect(h.router.snapshot().every((n) => n.up)).toBe(true);
  });

  it('never retries a write, even after a connection error; the error names the server from the first failure', async () => {
    const h = harness({ p: { fail: lost } });
    const error = await h.nodes.query('INSERT 1', [], undefined, WRITE, 'master').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NodeUnavailableError);
    expect(error).toMatchObject({ code: 'SHARDING_NODE_UNAVAILABLE', server: 'default', role: 'primary', node: 'p', cause: { code: 'PROTOCOL_CONNECTION_LOST' } });
    expect(h.log.filter((l) => l.includes('INSERT'))).toEqual(['p: INSERT 1']);
  });

  it('retries a read until a node answers, the primary last, and fails with one typed error when none does', async () => {
    const h = harness({ r1: { fail: lost }, r2: { refuse: true } });
    expect(await h.nodes.query('SELECT 1', [], undefined, READ, 'slave', h.placed)).toEqual([{ node: 'p' }]);
    expect(h.log.filter((l) => l.includes('SELECT'))).toEqual(['r1: SELECT 1', 'p: SELECT 1']);
    expect(h.placements).toEqual([expect.objectContaining({ node: 'p', role: 'primary', fallback: 'retry' })]);
    expect(await h.retries()).toBe(2);
    const none = harness({ r1: { fail: lost }, r2: { fail: lost }, p: { fail: lost } });
    const error = await none.nodes.query('SELECT 1', [], undefined, READ, 'slave').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SHARDING_NODE_UNAVAILABLE', server: 'default', role: 'any', cause: { code: 'PROTOCOL_CONNECTION_LOST' } });
    expect(none.log.filter((l) => l.includes('SELECT'))).toEqual(['r1: SELECT 1', 'r2: SELECT 1', 'p: SELECT 1']);
  });

  it('reads @@last_gtid on the connection that wrote when the result carries no GTID (INSERT … RETURNING), before it goes back to the pool', async () => {
    const h = harness({});
    await h.nodes.query('INSERT 1 RETURNING id', [], undefined, WRITE, 'master');
    expect(h.log).toEqual(['p: INSERT 1 RETURNING id', 'p: SELECT @@session.last_gtid AS gtid', 'p: release']);
  });

  it("reads a master QueryRunner's statement from the primary (TypeORM's replication contract)", async () => {
    const h = harness({});
    expect(await h.nodes.query('SELECT 1', [], undefined, READ, 'master', h.placed)).toEqual([{ node: 'p' }]);
    expect(h.placements[0]).toMatchObject({ node: 'p', reason: 'master-runner' });
  });

  it('retries a stream that failed before its first row, never one that had delivered rows', async () => {
    const before = harness({ r1: { failAfter: 0 } });
    expect(await before.rowsOf()).toEqual([0, 1, 2].map((i) => ({ node: 'r2', i })));
    expect(before.placements).toEqual([expect.objectContaining({ node: 'r2', fallback: 'retry' })]);

    const after = harness({ r1: { failAfter: 2 } });
    const seen: unknown[] = [];
    await expect(
      (async () => {
        for await (const row of after.nodes.rows('SELECT 1', [], undefined, READ, 'slave')) seen.push(row);
      })(),
    ).rejects.toMatchObject({ code: 'PROTOCOL_CONNECTION_LOST' });
    expect(seen).toEqual([0, 1].map((i) => ({ node: 'r1', i })));
    expect(after.log.filter((l) => l.startsWith('r2'))).toEqual([]);
    expect(await after.retries()).toBe(0);
  });

  it('drains a stream the caller stops early, then releases its connection', async () => {
    const h = harness({ r1: { rows: 5 } });
    for await (const row of h.nodes.rows('SELECT 1', [], undefined, READ, 'slave')) {
      expect(row).toEqual({ node: 'r1', i: 0 });
      break;
    }
    await new Promise((r) => setTimeout(r, 20));
    expect(h.log).toContain('r1: release');
    expect(h.router.snapshot().find((n) => n.node === 'r1')?.inFlight).toBe(0);
  });

  it('refuses a write at once when the primary is down, without taking a connection', async () => {
    const h = harness({});
    for (let i = 0; i < 3; i++) h.router.onHeartbeat(h.router.serverConfigs[0]!.primary, { ok: false, error: refused() });
    await expect(h.nodes.query('INSERT 1', [], undefined, WRITE, 'master')).rejects.toBeInstanceOf(NodeUnavailableError);
    expect(() => h.nodes.routeInTransaction(READ, undefined)).toThrow(NodeUnavailableError);
    expect(h.log).toEqual([]);
    // Reads go on on the replicas.
    expect(await h.nodes.query('SELECT 1', [], undefined, READ, 'slave')).toEqual([{ node: 'r1' }]);
  });

  it('holds the hints of the BEGIN for every statement of the transaction', () => {
    const h = harness({});
    const target = h.nodes.routeInTransaction(READ, '/*+ MASTER_ONLY */ BEGIN');
    expect([target.node.name, target.reason]).toEqual(['p', 'hint:MASTER_ONLY']);
    h.nodes.complete(target, { result: [] });
    expect(h.nodes.routeInTransaction(READ, 'START TRANSACTION').reason).toBe('transaction');
  });
});

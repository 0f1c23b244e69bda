import { describe, expect, it } from 'vitest';
import { NodeUnavailableError } from './errors.js';
import { forWritesOwnReads, withRouting } from './hints/routing-scope.js';
import { formatGtidPosition } from './lag/gtid.js';
import { QueryRouter } from './query-router.js';
import type { RouteTarget } from './route-target.js';
import type { StatementDescriptor } from './statement.js';
import { ManualClock } from './testing/manual-clock.js';
import { FakeMonitor, replicaAnswers, testConfig } from './testing/router-fixture.js';

const READ: StatementDescriptor = { kind: 'select', shapeKey: 'SELECT * FROM `t` WHERE `id` = ?' };
const WRITE: StatementDescriptor = { kind: 'insert', shapeKey: 'INSERT INTO `t` VALUES (?)' };
const ok = { result: [] };
/** A write's OK packet that changed nothing: no GTID to learn. */
const unchanged = { result: { affectedRows: 0 } };
const caughtUp = replicaAnswers({ secondsBehind: 0, applied: '' });
const written = (gtid: string) => ({ result: { affectedRows: 1, stateChanges: { systemVariables: { last_gtid: gtid } } } });
const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:2'), { code: 'ECONNREFUSED', fatal: true });

interface Harness {
  readonly router: QueryRouter;
  readonly clock: ManualClock;
  readonly down: Set<string>;
  readonly warnings: string[];
  /** Routes and completes `n` statements; returns the node names in order. */
  run(n: number, statement?: StatementDescriptor, server?: string): string[];
}

function harness(options: { extra?: Record<string, unknown>; analytics?: boolean; balancer?: string; monitor?: FakeMonitor } = {}): Harness {
  const clock = new ManualClock();
  const down = new Set<string>();
  const warnings: string[] = [];
  const router = new QueryRouter(testConfig(options.extra, options.analytics, options.balancer), {
    clock,
    probe: async (node) => {
      if (down.has(node.name)) throw refused();
      return 0.3;
    },
    monitor: options.monitor ?? new FakeMonitor().on('r1', caughtUp).on('r2', caughtUp).on('a1', caughtUp),
    warn: (m) => warnings.push(m),
  });
  const run = (n: number, statement: StatementDescriptor = READ, server = 'default') => {
    const names: string[] = [];
    for (let i = 0; i < n; i++) {
      const t = router.route(server, statement);
      names.push(t.node.name);
      router.complete(t, statement.kind === 'select' ? ok : unchanged);
    }
    return names;
  };
  return { router, clock, down, warnings, run };
}

const count = (names: readonly string[]) => names.reduce<Record<string, number>>((m, n) => ({ ...m, [n]: (m[n] ?? 0) + 1 }), {});

async function metric(router: QueryRouter, name: string): Promise<{ labels: Record<string, string | number>; value: number }[]> {
  const all = await router.metrics.registry.getMetricsAsJSON();
  return (all.find((m) => m.name === `typeorm_sharding_router_${name}`)?.values ?? []) as { labels: Record<string, string | number>; value: number }[];
}

describe('QueryRouter', () => {
  it('sends writes to the primary and spreads reads over the replicas', async () => {
    const h = harness();
    expect(h.run(3, WRITE)).toEqual(['p', 'p', 'p']);
    expect(h.run(4)).toEqual(['r1', 'r2', 'r1', 'r2']);
    const target = h.router.route('default', { kind: 'select', locking: 'for-update' });
    expect([target.node.name, target.reason]).toEqual(['p', 'locking-read']);
    h.router.complete(target, ok);
    expect(await metric(h.router, 'misroutes_total')).toEqual([]);
    const requests = await metric(h.router, 'requests_total');
    expect(requests.find((r) => r.labels.node === 'r1')).toMatchObject({ value: 2, labels: { kind: 'select', outcome: 'ok', role: 'replica' } });
  });

  it('follows hints from comments and scopes, and reports a hint it cannot follow once per shape', async () => {
    const h = harness();
    const overridden: unknown[] = [];
    h.router.on('hint-overridden', (e) => overridden.push(e));
    const forced = { ...READ, hints: h.router.hintsOf('/* FORCE_MASTER */ SELECT 1') };
    expect(h.run(2, forced)).toEqual(['p', 'p']);
    expect(withRouting({ forceMaster: true }, () => h.run(1))).toEqual(['p']);
    const slaveWrite = { ...WRITE, hints: h.router.hintsOf('/*+ FORCE_SLAVE */ INSERT INTO t VALUES (1)') };
    expect(h.run(3, slaveWrite)).toEqual(['p', 'p', 'p']);
    expect(overridden).toEqual([{ hint: 'FORCE_SLAVE', reason: 'write' }]);
    expect(h.warnings).toEqual(['Routing hint FORCE_SLAVE cannot be followed for this statement (write): it runs on the primary.']);
    expect(await metric(h.router, 'misroutes_total')).toEqual([]);
  });

  it('reports unknown and malformed hints as an event and a warning, once per shape', async () => {
    const h = harness();
    const problems: unknown[] = [];
    h.router.on('hint-problem', (p) => problems.push(p));
    for (let i = 0; i < 3; i++) h.router.hintsOf(`/*+ FORCE_SLAVES */ SELECT ${i}`);
    expect(problems).toEqual([expect.objectContaining({ kind: 'unknown-hint', hint: 'FORCE_SLAVES' })]);
    expect(h.warnings).toHaveLength(1);
    expect((await metric(h.router, 'hint_problems_total'))[0]).toMatchObject({ labels: { problem: 'unknown-hint' }, value: 1 });
  });

  it('marks a replica down after three missed heartbeats, moves its reads, and measures the failover', async () => {
    const h = harness();
    const events: unknown[] = [];
    h.router.on('node-down', (e) => events.push(e));
    h.router.start();
    await h.clock.advance(1000);
    h.down.add('r1');
    await h.clock.advance(2000);
    expect(h.router.snapshot().find((n) => n.node === 'r1')?.up).toBe(true);
    await h.clock.advance(1000);
    expect(events).toEqual([{ server: 'default', node: 'r1', role: 'replica', cause: 'heartbeat', failoverMs: 2000 }]);
    expect(h.router.failovers).toEqual([2000]);
    expect(count(h.run(10))).toEqual({ r2: 10 });
    expect((await metric(h.router, 'failovers_total'))[0]).toMatchObject({ value: 1, labels: { node: 'r1', cause: 'heartbeat' } });
    expect((await metric(h.router, 'node_up')).find((m) => m.labels.node === 'r1')?.value).toBe(0);
    await h.router.stop();
  });

  it('brings a node back after two good heartbeats, measures its lag, and ramps it up from 10 %', async () => {
    const monitor = new FakeMonitor()
      .on('p', () => [{ pos: '0-1-5' }])
      .on('r1', replicaAnswers({ secondsBehind: 0, applied: '0-1-5' }))
      .on('r2', replicaAnswers({ secondsBehind: 0, applied: '0-1-5' }));
    const h = harness({ monitor, extra: { warmUp: { duration: 10_000, steps: 2 } } });
    const r1 = () => h.router.snapshot().find((n) => n.node === 'r1')!;
    const atUp: unknown[] = [];
    // When it comes back its lag is unknown: no reads until the next lag check has measured it.
    h.router.on('node-up', () => atUp.push(r1().lagMs, count(h.run(10))));
    h.router.start();
    h.down.add('r1');
    await h.clock.advance(3000);
    h.down.delete('r1');
    await h.clock.advance(2000);
    expect(atUp).toEqual([Infinity, { r2: 10 }]);
    await h.clock.advance(1000);
    expect(r1()).toMatchObject({ up: true, lagMs: 0 });
    expect(r1().share).toBeCloseTo(0.1);
    expect(count(h.run(1100))).toEqual({ r1: 100, r2: 1000 });
    await h.clock.advance(4000);
    expect(r1().share).toBeCloseTo(0.55);
    await h.clock.advance(5000);
    expect(r1().share).toBe(1);
    expect(count(h.run(100))).toEqual({ r1: 50, r2: 50 });
    await h.router.stop();
  });

  it('takes a replica out after connection errors of statements, before the heartbeat', () => {
    const h = harness({ extra: { healthCheck: { errorThreshold: 2 } } });
    for (let i = 0; i < 2; i++) {
      const t = h.router.route('default', READ);
      expect(t.node.name).toBe(i === 0 ? 'r1' : 'r2');
      h.router.complete(t, { error: i === 0 ? refused() : new Error('Unknown column') });
    }
    let t = h.router.route('default', READ);
    expect(t.node.name).toBe('r1');
    const retry = h.router.complete(t, { error: refused() });
    expect(retry?.node.name).toBe('r2');
    h.router.complete(retry!, ok);
    expect(h.router.snapshot().find((n) => n.node === 'r1')?.up).toBe(false);
    expect(count(h.run(4))).toEqual({ r2: 4 });
    t = h.router.route('default', READ);
    expect(h.router.complete(t, { error: new Error('ER_PARSE_ERROR') })).toBeUndefined();
  });

  it('retries a read on every other node after connection errors, the primary last, never after rows were delivered', () => {
    const h = harness();
    const first = h.router.route('default', READ);
    const retry = h.router.complete(first, { error: refused() })!;
    expect([retry.node.name, retry.fallback, retry.attempt]).toEqual(['r2', 'retry', 2]);
    const last = h.router.complete(retry, { error: refused() })!;
    expect([last.node.name, last.role, last.fallback, last.attempt]).toEqual(['p', 'primary', 'retry', 3]);
    expect(h.router.complete(last, { error: refused() })).toBeUndefined();
    expect(h.router.failureOf(last, refused())).toMatchObject({ code: 'SHARDING_NODE_UNAVAILABLE', server: 'default', role: 'any', node: 'p' });
    const streamed = h.router.route('default', READ);
    expect(h.router.complete(streamed, { error: refused(), rowsDelivered: true })).toBeUndefined();
    const write = h.router.route('default', WRITE);
    expect(h.router.complete(write, { error: refused() })).toBeUndefined();
    expect(h.router.snapshot().every((n) => n.inFlight === 0)).toBe(true);
  });

  it('degrades reads to the primary when no replica is eligible, and fails writes fast when the primary is down', async () => {
    const replica = replicaAnswers({ secondsBehind: 0, applied: '' });
    const h = harness({ monitor: new FakeMonitor().on('r1', replica).on('r2', replica) });
    h.router.start();
    h.down.add('r1').add('r2');
    await h.clock.advance(3000);
    const degraded = h.router.route('default', READ);
    expect([degraded.node.name, degraded.fallback]).toEqual(['p', 'no-replica']);
    h.router.complete(degraded, ok);
    h.down.clear();
    h.down.add('p');
    await h.clock.advance(5000);
    expect(() => h.router.route('default', WRITE)).toThrow(NodeUnavailableError);
    try {
      h.router.route('default', WRITE);
    } catch (error) {
      expect(error).toMatchObject({ code: 'SHARDING_NODE_UNAVAILABLE', server: 'default', role: 'primary' });
      expect((error as Error).message).toContain('primary p of server default is down');
    }
    expect(() => withRouting({ forceMaster: true }, () => h.router.route('default', READ))).toThrow(NodeUnavailableError);
    expect(new Set(h.run(4))).toEqual(new Set(['r1', 'r2']));
    await h.router.stop();
  });

  it('keeps reads off a replica that lags past maxReplicationLagMs, and off one that does not replicate', async () => {
    const r1 = { secondsBehind: 0 as number | null, applied: '0-1-5' };
    const monitor = new FakeMonitor()
      .on('p', () => [{ pos: '0-1-5' }])
      .on('r1', replicaAnswers(r1))
      .on('r2', replicaAnswers({ secondsBehind: 0, applied: '0-1-5' }));
    const h = harness({ monitor, extra: { routing: { maxReplicationLagMs: 500 } } });
    const lagEvents: unknown[] = [];
    h.router.on('lag', (e) => lagEvents.push(e));
    await h.router.checkLagNow();
    expect(count(h.run(4))).toEqual({ r1: 2, r2: 2 });
    r1.secondsBehind = 3;
    await h.router.checkLagNow();
    expect(count(h.run(4))).toEqual({ r2: 4 });
    expect(lagEvents).toEqual([{ server: 'default', node: 'r1', lagMs: 3000, eligible: false }]);
    expect((await metric(h.router, 'replication_lag_ms')).find((m) => m.labels.node === 'r1')?.value).toBe(3000);
    r1.secondsBehind = 0;
    await h.router.checkLagNow();
    // Back in rotation, r1 ramps up again from its warm-up share (10 %), as a node back from down.
    expect(h.router.snapshot().find((n) => n.node === 'r1')?.share).toBeCloseTo(0.1);
    expect(count(h.run(22))).toEqual({ r1: 2, r2: 20 });
    await h.clock.advance(300_000);
    h.router.maintain();
    expect(count(h.run(4))).toEqual({ r1: 2, r2: 2 });
    monitor.on('r2', (sql) => (sql.startsWith('SHOW') ? [] : [{ pos: '0-1-5' }]));
    await h.router.checkLagNow();
    expect(count(h.run(4))).toEqual({ r1: 4 });
    expect(h.warnings.some((w) => w.includes('r2') && w.includes('SHOW REPLICA STATUS returns nothing'))).toBe(true);
  });

  it('measures lag from GTID positions when replication is stopped (Seconds_Behind_Master NULL)', async () => {
    const r1 = { secondsBehind: null, applied: '0-1-5', running: false };
    const r2 = { secondsBehind: 0, applied: '0-1-5' };
    const monitor = new FakeMonitor()
      .on('p', () => [{ pos: '0-1-5' }])
      .on('r1', replicaAnswers(r1))
      .on('r2', replicaAnswers(r2));
    const h = harness({ monitor, extra: { routing: { maxReplicationLagMs: 500 } } });
    await h.router.checkLagNow();
    expect(h.router.snapshot().find((n) => n.node === 'r1')?.lagMs).toBe(0);
    await h.clock.advance(100);
    const w = h.router.route('default', WRITE);
    h.router.complete(w, written('0-1-6'));
    r2.applied = '0-1-6';
    await h.clock.advance(700);
    await h.router.checkLagNow();
    expect(h.router.snapshot().find((n) => n.node === 'r1')?.lagMs).toBe(700);
    expect(h.router.snapshot().find((n) => n.node === 'r2')?.lagMs).toBe(0);
    expect(count(h.run(2))).toEqual({ r2: 2 });
  });

  it('makes a consistent read wait for the session’s write on the replica, and go to the primary on timeout', async () => {
    const h = harness();
    await withRouting({ consistentRead: true }, async () => {
      const w = h.router.route('default', WRITE);
      h.router.complete(w, written('0-1-9'));
      const read = h.router.route('default', READ);
      expect(read.role).toBe('replica');
      expect(formatGtidPosition(read.wait!.position)).toBe('0-1-9');
      expect(read.wait!.timeoutMs).toBe(250);
      const statements: unknown[][] = [];
      const reached = await h.router.awaitConsistency(read, async (sql, values) => {
        statements.push([sql, values]);
        return [[{ reached: 0 }], []];
      });
      expect(statements).toEqual([['SELECT MASTER_GTID_WAIT(?, ?) AS reached', ['0-1-9', 0.25]]]);
      expect([reached.node.name, reached.wait]).toEqual([read.node.name, undefined]);
      h.router.complete(reached, ok);
      // That replica is now known to have the write: the next read there needs no wait.
      const next = h.router.route('default', READ);
      expect([next.node.name, next.wait]).toEqual([read.node.name, undefined]);
      h.router.complete(next, ok);

      const w2 = h.router.route('default', WRITE);
      h.router.complete(w2, written('0-1-10'));
      const late = h.router.route('default', READ);
      const fallback = await h.router.awaitConsistency(late, async () => [[{ reached: -1 }], []]);
      expect([fallback.node.name, fallback.fallback]).toEqual(['p', 'consistency-timeout']);
      h.router.complete(fallback, ok);
    });
    expect(h.router.snapshot().every((n) => n.inFlight === 0)).toBe(true);
    const reads = await metric(h.router, 'consistent_reads_total');
    expect(Object.fromEntries(reads.map((r) => [r.labels.outcome, r.value]))).toEqual({ reached: 1, caught_up: 1, timeout: 1 });
  });

  it('reads without waiting outside a consistent scope (readYourWrites: hint), and waits in a writing session with readYourWrites: session', () => {
    const plain = harness();
    plain.router.complete(plain.router.route('default', WRITE), written('0-1-3'));
    expect(plain.router.route('default', READ).wait).toBeUndefined();
    const session = harness({ extra: { routing: { readYourWrites: 'session' } } });
    withRouting({}, () => {
      expect(session.router.route('default', READ).wait).toBeUndefined();
      session.router.complete(session.router.route('default', WRITE), written('0-1-3'));
      expect(session.router.route('default', READ).wait).toBeDefined();
    });
    expect(session.router.route('default', READ).wait).toBeUndefined();
  });

  it('reads the primary after a write whose GTID it could not learn (RETURNING rows, @@last_gtid unreadable), until a primary position polled after it', async () => {
    const monitor = new FakeMonitor().on('r1', caughtUp).on('r2', caughtUp);
    let binlog = '0-1-20';
    monitor.on('p', () => [{ pos: binlog }]);
    const h = harness({ monitor, extra: { routing: { readYourWrites: 'session' } } });
    const returning = { result: [{ id: 1, tag: 'new' }] };
    await withRouting({}, async () => {
      const w = h.router.route('default', WRITE);
      // The engine asks: rows carry no GTID, so @@last_gtid must be read on the same connection.
      expect(h.router.needsLastGtid(w, returning.result)).toBe(true);
      h.router.complete(w, { ...returning, lastGtid: Object.assign(new Error('boom'), { code: 'ER_UNKNOWN_SYSTEM_VARIABLE' }) });
      await h.clock.advance(10);
      const read = h.router.route('default', READ);
      expect([read.node.name, read.fallback, read.wait]).toEqual(['p', 'unknown-write', undefined]);
      h.router.complete(read, ok);
      // A poll of the primary sent after the write covers it: the read may then wait for that position on a replica.
      binlog = '0-1-21';
      await h.router.checkLagNow();
      const after = h.router.route('default', READ);
      expect(after.role).toBe('replica');
      h.router.complete(after, ok);
    });
    // Outside any session, CONSISTENT_READ follows every write of the router: the poll resolved that one too.
    const consistent = { ...READ, hints: h.router.hintsOf('/*+ CONSISTENT_READ */ SELECT 1') };
    const c = h.router.route('default', consistent);
    expect(c.role).toBe('replica');
    h.router.complete(c, ok);
    expect(h.warnings.filter((w) => w.includes('left no GTID'))).toHaveLength(1);
    expect((await metric(h.router, 'unknown_gtids_total'))[0]?.value).toBe(1);
    expect((await metric(h.router, 'fallbacks_total')).find((m) => m.labels.fallback === 'unknown-write')?.value).toBe(1);
  });

  it('takes the GTID of @@last_gtid when the result carries none, and asks for it only when it must', () => {
    const h = harness({ extra: { routing: { readYourWrites: 'session' } } });
    withRouting({}, () => {
      const w = h.router.route('default', WRITE);
      expect(h.router.needsLastGtid(w, written('0-1-5').result)).toBe(false);
      expect(h.router.needsLastGtid(w, { affectedRows: 0 })).toBe(false);
      expect(h.router.needsLastGtid(w, [{ id: 1 }])).toBe(true);
      h.router.complete(w, { result: [{ id: 1 }], lastGtid: [[{ gtid: '0-1-33' }], []] });
      expect(formatGtidPosition(h.router.route('default', READ).wait!.position)).toBe('0-1-33');
    });
    const read = h.router.route('default', READ);
    expect(h.router.needsLastGtid(read, [])).toBe(false);
    h.router.complete(read, ok);
  });

  it('keeps a replica whose lag cannot be read out of rotation, warns once naming SLAVE MONITOR, and takes it back once a check succeeds', async () => {
    const denied = () => {
      throw Object.assign(new Error('Access denied; you need (at least one of) the SLAVE MONITOR privilege(s) for this operation'), { code: 'ER_SPECIFIC_ACCESS_DENIED_ERROR', errno: 1227 });
    };
    let r1Denied = true;
    const monitor = new FakeMonitor().on('r2', caughtUp).on('r1', (sql) => (r1Denied && sql.startsWith('SHOW') ? denied() : caughtUp(sql)));
    const h = harness({ monitor });
    const lag: unknown[] = [];
    h.router.on('lag', (e) => lag.push(e));
    await h.router.checkLagNow();
    await h.router.checkLagNow();
    expect(count(h.run(4))).toEqual({ r2: 4 });
    expect(h.warnings).toHaveLength(1);
    expect(h.warnings[0]).toContain('SLAVE MONITOR');
    expect(lag).toEqual([{ server: 'default', node: 'r1', lagMs: Number.NaN, eligible: false }]);
    r1Denied = false;
    await h.router.checkLagNow();
    // Back in rotation, ramping up as a node back from down (10 % of its share at first).
    expect(lag[1]).toEqual({ server: 'default', node: 'r1', lagMs: 0, eligible: true });
    expect(h.run(40)).toContain('r1');
  });

  it('counts node-level refusals (rejected credentials, connection limits) against the node and retries the read elsewhere; SQL errors never', async () => {
    const h = harness({ extra: { healthCheck: { errorThreshold: 2 } } });
    const denied = () => Object.assign(new Error("Access denied for user 'app'"), { code: 'ER_ACCESS_DENIED_ERROR', errno: 1045, sqlState: '28000' });
    const tooMany = () => Object.assign(new Error('Too many connections'), { code: 'ER_CON_COUNT_ERROR', errno: 1040 });
    const noTable = () => Object.assign(new Error("Table 't' doesn't exist"), { code: 'ER_NO_SUCH_TABLE', errno: 1146 });
    const first = h.router.route('default', READ);
    expect(h.router.complete(first, { error: denied() })?.node.name).toBe('r2');
    const again = h.router.route('default', READ);
    h.router.complete(h.router.complete(again, { error: again.node.name === 'r1' ? tooMany() : noTable() }) ?? again, ok);
    expect(h.router.snapshot().find((n) => n.node === 'r1')?.up).toBe(again.node.name !== 'r1');
    const sql = h.router.route('default', READ);
    expect(h.router.complete(sql, { error: noTable() })).toBeUndefined();
    expect(h.router.failureOf(sql, noTable())).toBeUndefined();
    expect((await metric(h.router, 'requests_total')).filter((m) => m.labels.outcome === 'node_error').reduce((n, m) => n + m.value, 0)).toBeGreaterThan(0);
  });

  it("sends a write's own reads to the primary inside a forceSlave scope, and reports the hint as overridden", () => {
    const h = harness();
    withRouting({ forceSlave: true }, () => {
      expect(h.run(1)).toEqual(['r1']);
      return forWritesOwnReads(async () => {
        const t = h.router.route('default', READ);
        expect([t.node.name, t.reason]).toEqual(['p', 'write-own-read']);
        h.router.complete(t, ok);
      });
    });
    expect(h.warnings).toEqual(['Routing hint FORCE_SLAVE cannot be followed for this statement (write-own-read): it runs on the primary.']);
  });

  it("records a transaction's COMMIT GTID (noteWrite) for the scope's session and for the server", () => {
    const h = harness({ extra: { routing: { readYourWrites: 'session' } } });
    withRouting({}, () => {
      h.router.noteWrite('default', written('0-1-12').result);
      expect(formatGtidPosition(h.router.route('default', READ).wait!.position)).toBe('0-1-12');
    });
    // Outside the scope a CONSISTENT_READ waits for every write the router saw on the server.
    const consistent = { ...READ, hints: h.router.hintsOf('/*+ CONSISTENT_READ */ SELECT 1') };
    expect(formatGtidPosition(h.router.route('default', consistent).wait!.position)).toBe('0-1-12');
    h.router.noteWrite('default', { affectedRows: 0 });
    h.router.noteWrite('nowhere', written('0-1-13').result);
    expect(formatGtidPosition(h.router.route('default', consistent).wait!.position)).toBe('0-1-12');
  });

  it('keeps a sticky session (or, without one, a sticky shape) on one node while it stays eligible', async () => {
    const h = harness();
    withRouting({ sticky: true }, () => expect(new Set(h.run(5))).toEqual(new Set(['r1'])));
    withRouting({ sticky: true }, () => expect(new Set(h.run(5))).toEqual(new Set(['r2'])));
    const stickyShape = { ...READ, hints: h.router.hintsOf('/*+ ROUTE_STICKY */ SELECT 1') };
    const first = h.run(1, stickyShape)[0]!;
    expect(new Set(h.run(5, stickyShape))).toEqual(new Set([first]));
    h.router.start();
    h.down.add(first);
    await h.clock.advance(3000);
    expect(new Set(h.run(3, stickyShape)).has(first)).toBe(false);
    await h.router.stop();
  });

  it('sends analytics-shaped reads to the analytics node, and to the replicas when it is down', async () => {
    const h = harness({ analytics: true });
    const report: StatementDescriptor = { kind: 'select', hasAggregates: true, hasGroupBy: true, shardCount: 4, shapeKey: 'SELECT `d`, AVG(`s`) FROM `e` GROUP BY `d`' };
    expect(h.run(2, report)).toEqual(['a1', 'a1']);
    expect(h.run(2, { ...report, shardCount: 1 })).toEqual(['r1', 'r2']);
    h.router.start();
    h.down.add('a1');
    await h.clock.advance(3000);
    const t = h.router.route('default', report);
    expect([t.node.name, t.fallback]).toEqual(['r1', 'no-analytics']);
    await h.router.stop();
  });

  it('remembers the per-shape part (route cache) and exposes its counters', async () => {
    const h = harness();
    h.run(5);
    h.run(5, WRITE);
    const text = await h.router.metrics.registry.metrics();
    expect(text).toMatch(/typeorm_sharding_router_route_cache_hits_total 8/);
    expect(text).toMatch(/typeorm_sharding_router_route_cache_misses_total 2/);
    expect(text).toMatch(/typeorm_sharding_router_decision_time_ms_bucket\{le="0.02",type="replica"\}/);
    expect(text).not.toContain('SELECT');
    expect(text).not.toContain('INSERT');
  });

  it('balances by statements in flight with least_outstanding', () => {
    const h = harness({ balancer: 'least_outstanding' });
    const held: RouteTarget[] = [];
    for (let i = 0; i < 3; i++) held.push(h.router.route('default', READ));
    expect(count(held.map((t) => t.node.name))).toEqual({ r1: 2, r2: 1 });
    expect(h.router.route('default', READ).node.name).toBe('r2');
  });

  it('warms up a node added at run time', () => {
    const h = harness({ extra: { warmUp: { duration: 60_000 } } });
    const base = h.router.serverConfigs[0]!.replicas[0]!;
    h.router.addNode({ ...base, name: 'r3', port: 5 });
    expect(count(h.run(2100))).toEqual({ r1: 1000, r2: 1000, r3: 100 });
  });
});

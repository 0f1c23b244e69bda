import { describe, expect, it } from 'vitest';
import type { ShardTarget } from '../execute/shard-target.js';
import type { Branch } from '../session/commit-protocol.js';
import { DecisionLog } from './decision-log.js';
import { driverError, FakeXaServer, fakeRunner } from './testing/fake-xa.js';
import { CommitOutcomeUnknownError, PrepareFailedError } from './transaction-errors.js';
import { commitTwoPhase, type TwoPhaseHost } from './two-phase-commit.js';
import { branchXid } from './xid.js';

const GTRID = 'app.0.abc';

/** Coordinator a (local), participants b and c; runner options per server. */
function setup(options: Partial<Record<'a' | 'b' | 'c', Parameters<typeof fakeRunner>[1]>> = {}) {
  const servers = { a: new FakeXaServer('a', 0), b: new FakeXaServer('b', 1), c: new FakeXaServer('c', 2) };
  const runners = { a: fakeRunner(servers.a, options.a), b: fakeRunner(servers.b, options.b), c: fakeRunner(servers.c, options.c) };
  const log = new DecisionLog(servers.a, 'tsh_xa_log');
  const events: string[] = [];
  /** Servers whose commit the query router was told of (their GTIDs for read-your-writes). */
  const noted: string[] = [];
  const host: TwoPhaseHost = {
    logFor: () => log,
    server: (name) => servers[name as 'a' | 'b' | 'c'],
    step: async (step, _x, _s, server) => void events.push(`${step}${server ? ` ${server}` : ''}`),
    finished: () => void events.push('finished'),
    warn: (m) => void events.push(`warn: ${m}`),
    nudge: () => void events.push('nudge'),
  };
  const target = (name: string) => ({ nodes: { committed: () => void noted.push(name) } }) as unknown as ShardTarget;
  const branch = (name: 'a' | 'b' | 'c', id: number): Branch => ({ server: name, target: target(name), runner: runners[name].runner, kind: 'own', ...(name === 'a' ? {} : { xid: branchXid(GTRID, id) }) });
  return { servers, runners, events, noted, host, branches: [branch('a', 0), branch('b', 1), branch('c', 2)] };
}

const statements = (s: FakeXaServer) => s.log.filter((l) => !l.startsWith('SELECT VERSION'));

describe('commitTwoPhase', () => {
  it('writes the decision inside the coordinator, ends and prepares the branches, commits the coordinator, then them; the record goes', async () => {
    const { servers, events, noted, host, branches, runners } = setup();
    await commitTwoPhase(host, GTRID, branches);
    expect(noted).toEqual(['a', 'b', 'c']);
    // One statement fewer than a record in autocommit then an UPDATE: the INSERT is the decision once a commits.
    expect(statements(servers.a)).toEqual([`INSERT ${GTRID}`, 'COMMIT']);
    expect(statements(servers.b)).toEqual([`XA END '${GTRID}','1'`, `XA PREPARE '${GTRID}','1'`, `XA COMMIT '${GTRID}','1'`]);
    expect(servers.a.records.get(GTRID)?.state).toBe('commit');
    expect(events).toEqual(['recorded', 'prepared b', 'prepared c', 'decided', 'committed b', 'committed c', 'finished']);
    expect([runners.a.released(), runners.b.released(), runners.c.released()]).toEqual([1, 1, 1]);
  });

  it('a failed PREPARE rolls every part back, claims the record for rollback, and names the server', async () => {
    const { servers, events, noted, host, branches } = setup({ c: { failOn: 'XA PREPARE' } });
    const error = await commitTwoPhase(host, GTRID, branches).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PrepareFailedError);
    expect(noted).toEqual([]);
    expect(error).toMatchObject({ server: 'c', reason: 'XA PREPARE failed' });
    // The coordinator (and the decision in it) rolled back first, then the record claimed: written as rollback.
    expect(statements(servers.a)).toEqual([`INSERT ${GTRID}`, 'ROLLBACK', `UPDATE ${GTRID}`, `INSERT ${GTRID}`]);
    expect(servers.a.records.get(GTRID)?.state).toBe('rollback');
    expect(statements(servers.b)).toContain(`XA ROLLBACK '${GTRID}','1'`);
    expect(servers.b.prepared.size).toBe(0);
    expect(events).not.toContain('decided');
    expect(events.at(-1)).toBe('rolled-back');
  });

  it('a PREPARE applied but whose reply was lost: its branch is left to the resolver, under a record that says rollback', async () => {
    const { servers, events, host, branches } = setup({ c: { applyThenFail: 'XA PREPARE' } });
    await expect(commitTwoPhase(host, GTRID, branches)).rejects.toBeInstanceOf(PrepareFailedError);
    expect(servers.c.prepared.size).toBe(1);
    expect(servers.a.records.get(GTRID)?.state).toBe('rollback');
    expect(events).toContain('nudge');
    expect(events).not.toContain('finished');
  });

  it('the log cannot be written: nothing is prepared, everything rolled back', async () => {
    const { servers, host, branches } = setup({ a: { failOn: 'INSERT', error: driverError('log table missing', 1146) } });
    await expect(commitTwoPhase(host, GTRID, branches)).rejects.toMatchObject({ server: 'a', reason: 'the decision log could not be written' });
    expect(statements(servers.b).some((l) => l.startsWith('XA PREPARE'))).toBe(false);
  });

  it.each([
    ['the decision log cannot be written', { a: { failOn: 'INSERT', error: driverError('log table missing', 1146) } }],
    ['XA END fails on one participant', { c: { failOn: 'XA END', error: driverError('XAER_RMFAIL', 1399) } }],
    ['XA END loses the connection of one participant', { b: { applyThenFail: 'XA END' } }],
  ] as const)('an abort before any PREPARE (%s) rolls back every participant or discards its connection: no open branch goes back to a pool', async (_, options) => {
    const x = setup(options);
    await expect(commitTwoPhase(x.host, GTRID, x.branches)).rejects.toBeInstanceOf(PrepareFailedError);
    for (const name of ['b', 'c'] as const) {
      const rolledBack = statements(x.servers[name]).includes(`XA ROLLBACK '${GTRID}','${name === 'b' ? 1 : 2}'`);
      expect({ name, cleaned: rolledBack || x.runners[name].destroyed() }).toEqual({ name, cleaned: true });
      expect(statements(x.servers[name]).some((l) => l.startsWith('XA PREPARE'))).toBe(false);
    }
    expect(statements(x.servers.a).at(-1)).toBe('ROLLBACK');
  });

  it('a record a resolver wrote first (rollback): the decision cannot be written and every part rolls back', async () => {
    const { servers, host, branches } = setup();
    servers.a.records.set(GTRID, { state: 'rollback', ageUs: 0 });
    await expect(commitTwoPhase(host, GTRID, branches)).rejects.toMatchObject({ server: 'a', reason: 'the decision log could not be written' });
    expect(servers.b.prepared.size + servers.c.prepared.size).toBe(0);
    expect(servers.a.records.get(GTRID)?.state).toBe('rollback');
  });

  it("the coordinator's COMMIT loses its connection but the log says commit: the branches commit", async () => {
    const { servers, events, host, branches } = setup({ a: { applyThenFail: 'COMMIT' } });
    await commitTwoPhase(host, GTRID, branches);
    expect(events).toContain('decided');
    expect(servers.b.prepared.size + servers.c.prepared.size).toBe(0);
    expect(statements(servers.b).at(-1)).toBe(`XA COMMIT '${GTRID}','1'`);
  });

  it("the coordinator's COMMIT is lost before it applied: the record is claimed, every branch rolls back", async () => {
    const { servers, host, branches } = setup({ a: { failOn: 'COMMIT' } });
    await expect(commitTwoPhase(host, GTRID, branches)).rejects.toMatchObject({ server: 'a', reason: 'COMMIT failed' });
    expect(servers.a.records.get(GTRID)?.state).toBe('rollback');
    expect(servers.b.prepared.size + servers.c.prepared.size).toBe(0);
  });

  it("the coordinator's COMMIT is lost and its log cannot be read: the outcome is unknown, the branches are left to the resolver", async () => {
    const { servers, events, host, branches, runners } = setup({ a: { failOn: 'COMMIT' } });
    servers.a.fail('SELECT', driverError('connect ECONNREFUSED'));
    const error = await commitTwoPhase(host, GTRID, branches).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommitOutcomeUnknownError);
    expect(error).toMatchObject({ server: 'a', xid: GTRID });
    expect(servers.b.prepared.size + servers.c.prepared.size).toBe(2);
    expect(runners.b.destroyed()).toBe(true);
    expect(events).toContain('nudge');
  });

  it('a branch whose XA COMMIT fails is committed from a fresh connection, or left prepared with a warning: never reported as rolled back', async () => {
    const ok = setup({ c: { failOn: 'XA COMMIT' } });
    await commitTwoPhase(ok.host, GTRID, ok.branches);
    expect(ok.servers.c.prepared.size).toBe(0);
    expect(ok.noted.sort()).toEqual(['a', 'b', 'c']);
    expect(ok.events).toContain('finished');

    const left = setup({ c: { failOn: 'XA COMMIT' } });
    left.servers.c.fail('XA COMMIT', driverError('connect ECONNREFUSED'));
    await commitTwoPhase(left.host, GTRID, left.branches);
    expect(left.servers.c.prepared.size).toBe(1);
    expect(left.noted.sort()).toEqual(['a', 'b']);
    expect(left.events.some((e) => /warn: XA COMMIT of committed transaction .* failed on server c/.test(e))).toBe(true);
    expect(left.events).toContain('nudge');
    expect(left.servers.a.records.get(GTRID)?.state).toBe('commit');
  });
});

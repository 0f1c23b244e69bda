import { describe, expect, it } from 'vitest';
import { DecisionLog } from './decision-log.js';
import { driverError, FakeXaServer } from './testing/fake-xa.js';
import { resolveInDoubt, type ResolverHost } from './xa-resolver.js';

/** Two servers a (id 0) and b (id 3); `prepared` lists `gtrid|bqual` per server. */
function setup(resolveAfterMs = 1000) {
  const a = new FakeXaServer('a', 0);
  const b = new FakeXaServer('b', 3);
  const logs = new Map([[0, new DecisionLog(a, 't')], [3, new DecisionLog(b, 't')]]);
  const events: string[] = [];
  const host: ResolverHost = {
    prefix: 'app',
    servers: [a, b],
    logOfId: (id) => logs.get(id),
    resolveAfterMs,
    step: async (_step, gtrid, _servers, server, outcome) => void events.push(`${outcome} ${gtrid} on ${server}`),
    warn: (m) => void events.push(`warn: ${m}`),
  };
  return { a, b, host, events };
}

describe('resolveInDoubt', () => {
  it('commits or rolls back each prepared branch by its coordinator log: presumed abort', async () => {
    const { a, b, host, events } = setup();
    a.records.set('app.0.c1', { state: 'commit', ageUs: 0 });
    a.records.set('app.0.r1', { state: 'rollback', ageUs: 0 });
    b.records.set('app.3.c2', { state: 'commit', ageUs: 0 });
    b.prepared.add('app.0.c1|3');
    b.prepared.add('app.0.r1|3');
    b.prepared.add('app.0.none|3');
    a.prepared.add('app.3.c2|0');
    const report = await resolveInDoubt(host);
    expect(report).toEqual({ committed: 2, rolledBack: 2, pending: 0 });
    expect(events.sort()).toEqual(['commit app.0.c1 on b', 'commit app.3.c2 on a', 'rollback app.0.none on b', 'rollback app.0.r1 on b']);
    expect(a.prepared.size + b.prepared.size).toBe(0);
  });

  it('claims a branch without a record with a rollback record; one that its coordinator committed meanwhile is committed', async () => {
    const { a, b, host } = setup();
    b.prepared.add('app.0.none|3');
    b.prepared.add('app.0.late|3');
    // The coordinator of `late` commits its decision while the claim waits on its row lock.
    const query = a.query.bind(a);
    a.query = async (sql, parameters = []) => {
      if (sql.startsWith('INSERT') && parameters[0] === 'app.0.late') a.records.set('app.0.late', { state: 'commit', ageUs: 0 });
      return query(sql, parameters);
    };
    expect(await resolveInDoubt(host)).toEqual({ committed: 1, rolledBack: 1, pending: 0 });
    expect(a.records.get('app.0.none')?.state).toBe('rollback');
    expect(b.prepared.size).toBe(0);
  });

  it('leaves a recorded, undecided transaction alone while it is young, then claims it for rollback', async () => {
    const { a, b, host } = setup(1000);
    a.records.set('app.0.p', { state: 'prepared', ageUs: 500_000 });
    b.prepared.add('app.0.p|3');
    expect(await resolveInDoubt(host)).toEqual({ committed: 0, rolledBack: 0, pending: 1 });
    expect(b.prepared.size).toBe(1);
    a.records.get('app.0.p')!.ageUs = 1_000_000;
    expect(await resolveInDoubt(host)).toEqual({ committed: 0, rolledBack: 1, pending: 0 });
    expect(a.records.get('app.0.p')?.state).toBe('rollback');
  });

  it("touches only its own branches: another prefix, or another configured server's branch on the same MariaDB", async () => {
    const { a, b, host } = setup();
    b.prepared.add('other.0.x|3');
    b.prepared.add('app.0.x|0');
    expect(await resolveInDoubt(host)).toEqual({ committed: 0, rolledBack: 0, pending: 0 });
    expect(b.prepared.size).toBe(2);
    expect(a.log.filter((l) => l.startsWith('XA COMMIT') || l.startsWith('XA ROLLBACK'))).toEqual([]);
  });

  it('counts a branch still attached to a live connection as pending', async () => {
    const { a, b, host } = setup();
    a.records.set('app.0.c', { state: 'commit', ageUs: 0 });
    b.prepared.add('app.0.c|3');
    b.attached.add('app.0.c|3');
    expect(await resolveInDoubt(host)).toEqual({ committed: 0, rolledBack: 0, pending: 1 });
  });

  it('removes decided records no server lists, keeps them while one does or a server does not answer, and claims old undecided ones', async () => {
    const { a, b, host } = setup(1000);
    a.records.set('app.0.done', { state: 'commit', ageUs: 0 });
    a.records.set('app.0.gone', { state: 'rollback', ageUs: 0 });
    a.records.set('app.0.young', { state: 'prepared', ageUs: 0 });
    a.records.set('app.0.old', { state: 'prepared', ageUs: 2_000_000 });
    b.down = true;
    await resolveInDoubt(host);
    expect([...a.records.keys()].sort()).toEqual(['app.0.done', 'app.0.gone', 'app.0.old', 'app.0.young']);
    b.down = false;
    await resolveInDoubt(host);
    expect(Object.fromEntries([...a.records].map(([k, v]) => [k, v.state]))).toEqual({ 'app.0.old': 'rollback', 'app.0.young': 'prepared' });
    await resolveInDoubt(host);
    expect([...a.records.keys()]).toEqual(['app.0.young']);
  });

  it('warns about a branch it cannot finish, and keeps it pending', async () => {
    const { a, b, host, events } = setup();
    a.records.set('app.0.c', { state: 'commit', ageUs: 0 });
    b.prepared.add('app.0.c|3');
    b.fail('XA COMMIT', driverError('lock wait timeout', 1205));
    expect(await resolveInDoubt(host)).toMatchObject({ pending: 1 });
    expect(events.join()).toMatch(/could not commit the prepared branch of app\.0\.c on server b/);
  });
});

import { describe, expect, it } from 'vitest';
import { QueryRouter } from './query-router.js';
import type { RouteTarget } from './route-target.js';
import type { StatementDescriptor } from './statement.js';
import { ManualClock } from './testing/manual-clock.js';
import { FakeMonitor, replicaAnswers, testConfig } from './testing/router-fixture.js';

// A read that must see earlier writes (CONSISTENT_READ, readYourWrites) and fails on its replica
// after its GTID wait reached there, or after the caught-up shortcut let it skip the wait: its
// retry must not land on another replica without a wait (that one may lag: a silent stale read).

const READ: StatementDescriptor = { kind: 'select', shapeKey: 'SELECT * FROM `t` WHERE `id` = ?' };
const WRITE: StatementDescriptor = { kind: 'insert', shapeKey: 'INSERT INTO `t` VALUES (?)' };
const written = (gtid: string) => ({ result: { affectedRows: 1, stateChanges: { systemVariables: { last_gtid: gtid } } } });
const reset = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', fatal: true });
const reached = async () => [[{ reached: 0 }], []];

function routerWith(readYourWrites: 'hint' | 'session' | 'global'): QueryRouter {
  const caughtUp = replicaAnswers({ secondsBehind: 0, applied: '' });
  return new QueryRouter(testConfig({ routing: { readYourWrites } }), {
    clock: new ManualClock(),
    probe: async () => 0.3,
    monitor: new FakeMonitor().on('r1', caughtUp).on('r2', caughtUp),
    warn: () => undefined,
  });
}

/** Routes `statement` to a replica, lets its wait reach, fails it with a lost connection; returns the retry. */
async function failAfterWait(router: QueryRouter, statement: StatementDescriptor): Promise<{ first: RouteTarget; retry: RouteTarget | undefined }> {
  const routed = router.route('default', statement);
  expect(routed.role).toBe('replica');
  const first = await router.awaitConsistency(routed, reached);
  expect(first.node.name).toBe(routed.node.name);
  return { first, retry: router.complete(first, { error: reset() }) };
}

describe('a consistent read that fails on its replica', () => {
  it('with CONSISTENT_READ outside any scope: retried on the primary, after its wait reached and after the caught-up shortcut', async () => {
    const router = routerWith('hint');
    const consistent = { ...READ, hints: router.hintsOf('/*+ CONSISTENT_READ */ SELECT 1') };
    router.complete(router.route('default', WRITE), written('0-1-9'));

    const { first, retry } = await failAfterWait(router, consistent);
    expect(first.wait).toBeUndefined();
    expect([retry?.node.name, retry?.fallback]).toEqual(['p', 'retry']);
    router.complete(retry!, { result: [] });

    // That wait taught the router that the first replica has 0-1-9: the next read there skips the wait.
    const skipped = router.route('default', consistent);
    expect([skipped.node.name, skipped.wait]).toEqual([first.node.name, undefined]);
    const retried = router.complete(skipped, { error: reset() });
    expect(retried?.role).toBe('primary');
    router.complete(retried!, { result: [] });
    expect(router.snapshot().every((n) => n.inFlight === 0)).toBe(true);
  });

  it("with readYourWrites 'global': retried on the primary", async () => {
    const router = routerWith('global');
    router.complete(router.route('default', WRITE), written('0-1-4'));
    const { retry } = await failAfterWait(router, READ);
    expect(retry?.role).toBe('primary');
  });

  it('that must see nothing: retried on the other replica, as any read', async () => {
    const router = routerWith('hint');
    router.complete(router.route('default', WRITE), written('0-1-4'));
    const first = router.route('default', READ);
    expect(first.wait).toBeUndefined();
    const retry = router.complete(first, { error: reset() });
    expect([retry?.role, retry?.node.name === first.node.name]).toEqual(['replica', false]);
  });
});

import { describe, expect, it } from 'vitest';
import { withRouting } from './hints/routing-scope.js';
import { changesData } from './lag/capture-gtid.js';
import { formatGtidPosition } from './lag/gtid.js';
import { QueryRouter } from './query-router.js';
import type { StatementDescriptor } from './statement.js';
import { ManualClock } from './testing/manual-clock.js';
import { FakeMonitor, replicaAnswers, testConfig } from './testing/router-fixture.js';

// A transaction's COMMIT that reports no GTID (its connection no longer tracks last_gtid, e.g.
// after mysql2's resetOnRelease) is a write the router cannot place: the reads that must see it
// go to the primary until a polled primary position covers it, as for any write of unknown GTID.

const READ: StatementDescriptor = { kind: 'select', shapeKey: 'SELECT * FROM `t` WHERE `id` = ?' };
/** The OK packet of a COMMIT on a connection that does not track last_gtid. */
const untracked = { affectedRows: 0, insertId: 0, warningStatus: 0 };

function harness() {
  const clock = new ManualClock();
  const monitor = new FakeMonitor().on('r1', replicaAnswers({ secondsBehind: 0, applied: '0-1-5' })).on('r2', replicaAnswers({ secondsBehind: 0, applied: '0-1-5' }));
  let binlog = '0-1-5';
  monitor.on('p', () => [{ pos: binlog }]);
  const warnings: string[] = [];
  const router = new QueryRouter(testConfig({ routing: { readYourWrites: 'session' } }), { clock, probe: async () => 0.3, monitor, warn: (m) => warnings.push(m) });
  return { router, clock, warnings, advanceBinlog: (to: string) => void (binlog = to) };
}

describe("a transaction's COMMIT without a GTID", () => {
  it('after the transaction wrote: its session and CONSISTENT_READ read the primary until a poll sent after it covers it', async () => {
    const h = harness();
    // A poll sent at the very instant the COMMIT finished does not stand for it (it may have been answered first).
    await h.router.checkLagNow();
    await withRouting({}, async () => {
      h.router.noteWrite('default', untracked, undefined, true);
      const read = h.router.route('default', READ);
      expect([read.role, read.fallback]).toEqual(['primary', 'unknown-write']);
      h.router.complete(read, { result: [] });
      const consistent = h.router.route('default', { ...READ, hints: h.router.hintsOf('/*+ CONSISTENT_READ */ SELECT 1') });
      expect([consistent.role, consistent.fallback]).toEqual(['primary', 'unknown-write']);
      h.router.complete(consistent, { result: [] });

      // The commit reached the binlog as 0-1-6; a poll sent after it stands for it.
      await h.clock.advance(5);
      h.advanceBinlog('0-1-6');
      await h.router.checkLagNow();
      const after = h.router.route('default', READ);
      expect(after.role).toBe('replica');
      expect(formatGtidPosition(after.wait!.position)).toBe('0-1-6');
      h.router.complete(after, { result: [] });
    });
    expect(h.warnings.filter((w) => w.includes("COMMIT on the primary of server default reported no GTID"))).toHaveLength(1);
  });

  it('after a read-only transaction: nothing to wait for', () => {
    const h = harness();
    withRouting({}, () => {
      h.router.noteWrite('default', untracked, undefined, false);
      const read = h.router.route('default', READ);
      expect([read.role, read.wait]).toEqual(['replica', undefined]);
    });
    expect(h.warnings).toEqual([]);
  });

  it('tells a statement that changed data from one that did not (what makes a transaction one that wrote)', () => {
    expect(changesData('insert', { affectedRows: 1 })).toBe(true);
    expect(changesData('update', { affectedRows: 0 })).toBe(false);
    expect(changesData('insert', [{ id: 1 }])).toBe(true);
    expect(changesData('ddl', { affectedRows: 0 })).toBe(true);
    expect(changesData('select', [{ id: 1 }])).toBe(false);
    expect(changesData('transaction', { affectedRows: 0 })).toBe(false);
  });
});

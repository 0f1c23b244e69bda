import { describe, expect, it } from 'vitest';
import { gtidOfLastGtidRows, gtidOfResult, gtidUnknown } from './capture-gtid.js';
import { coversPosition, formatGtidPosition, mergePositions, parseGtidPosition } from './gtid.js';
import { combinedLagMs, PrimaryPositions } from './lag-estimate.js';
import { readReplicaStatus } from './replica-status.js';

const pos = parseGtidPosition;

describe('GTID positions', () => {
  it('parse, format, cover and merge per domain', () => {
    expect(formatGtidPosition(pos('1-2-7, 0-1-42'))).toBe('0-1-42,1-2-7');
    expect(pos('')).toEqual(new Map());
    expect(coversPosition(pos('0-1-42,1-2-7'), pos('0-1-40'))).toBe(true);
    expect(coversPosition(pos('0-1-42'), pos('0-1-43'))).toBe(false);
    expect(coversPosition(pos('0-1-42'), pos('1-1-1'))).toBe(false);
    expect(formatGtidPosition(mergePositions(pos('0-1-5,1-1-9'), pos('0-2-8')))).toBe('0-2-8,1-1-9');
    expect(() => pos('0-1')).toThrow(TypeError);
  });

  it("reads a write's GTID from mysql2's result, in either API's shape", () => {
    const header = { affectedRows: 1, stateChanges: { systemVariables: { last_gtid: '0-1-4' }, schema: null, gtids: [] } };
    expect(formatGtidPosition(gtidOfResult(header)!)).toBe('0-1-4');
    expect(formatGtidPosition(gtidOfResult([header, undefined])!)).toBe('0-1-4');
    expect(gtidOfResult({ affectedRows: 1 })).toBeUndefined();
    expect(gtidOfResult([{ id: 1 }])).toBeUndefined();
    expect(gtidOfResult({ stateChanges: { systemVariables: { last_gtid: '' } } })).toBeUndefined();
  });
});

describe('replica lag', () => {
  it('is the age of the oldest primary position the replica has not applied', () => {
    const primary = new PrimaryPositions();
    primary.add(1000, pos('0-1-10'));
    primary.add(2000, pos('0-1-11'));
    primary.add(3000, pos('0-1-15'));
    expect(primary.lagMs(pos('0-1-15'), 3500)).toBe(0);
    expect(primary.lagMs(pos('0-1-11'), 3500)).toBe(500);
    expect(primary.lagMs(pos('0-1-10'), 3500)).toBe(1500);
    expect(primary.lagMs(pos('0-1-3'), 3500)).toBe(2500);
    // No write since: a stopped replica that has everything is not stale.
    expect(primary.lagMs(pos('0-1-15'), 60_000)).toBe(0);
  });

  it('merges positions seen within the resolution into the earlier sample (errs towards more lag)', () => {
    const primary = new PrimaryPositions(100);
    primary.add(1000, pos('0-1-10'));
    primary.add(1050, pos('0-1-12'));
    expect(primary.lagMs(pos('0-1-11'), 2000)).toBe(1000);
    expect(formatGtidPosition(primary.latest!)).toBe('0-1-12');
  });

  it('takes the larger of the GTID estimate and Seconds_Behind_Master', () => {
    expect(combinedLagMs(200, 3)).toBe(3000);
    expect(combinedLagMs(5000, null)).toBe(5000);
    expect(combinedLagMs(undefined, 0)).toBe(0);
    expect(combinedLagMs(undefined, null)).toBeUndefined();
  });

  it('reads SHOW REPLICA STATUS', () => {
    expect(readReplicaStatus([])).toBeUndefined();
    expect(readReplicaStatus([{ Slave_IO_Running: 'Yes', Slave_SQL_Running: 'No', Seconds_Behind_Master: null, Last_SQL_Error: 'boom', Last_IO_Error: '' }])).toEqual({
      ioRunning: true,
      sqlRunning: false,
      secondsBehind: null,
      lastError: 'boom',
    });
    expect(readReplicaStatus([{ Slave_IO_Running: 'Yes', Slave_SQL_Running: 'Yes', Seconds_Behind_Master: '2' }])?.secondsBehind).toBe(2);
  });
});

describe('a write whose GTID is unknown (then @@last_gtid is read on its connection)', () => {
  const tracked = { affectedRows: 1, stateChanges: { systemVariables: { last_gtid: '0-1-4' } } };
  it.each([
    ['an INSERT whose OK packet tracked it', 'insert', tracked, false],
    ['the promise API pair of it', 'update', [tracked, undefined], false],
    ['a write that changed nothing', 'update', { affectedRows: 0 }, false],
    ['INSERT … RETURNING (rows, no OK packet)', 'insert', [{ id: 1, tag: 'new' }], true],
    ['DELETE … RETURNING of nothing', 'delete', [], true],
    ['a write that changed rows but tracked nothing', 'delete', { affectedRows: 2 }, true],
    ['a result the router cannot read', 'insert', undefined, true],
    ['DDL, whatever it reports', 'ddl', { affectedRows: 0 }, true],
    ['a CALL that changed rows', 'other', [[{ x: 1 }], { affectedRows: 1 }], true],
    ['a SHOW', 'other', [{ Variable_name: 'x' }], false],
    ['a read', 'select', [{ id: 1 }], false],
  ] as const)('%s', (_, kind, result, unknown) => {
    expect(gtidUnknown(kind, result)).toBe(unknown);
  });

  it('reads the position of @@last_gtid, and nothing from an empty or unreadable answer', () => {
    expect(formatGtidPosition(gtidOfLastGtidRows([{ gtid: '0-1-7' }])!)).toBe('0-1-7');
    expect(formatGtidPosition(gtidOfLastGtidRows([[{ gtid: '0-1-8' }], []])!)).toBe('0-1-8');
    expect(gtidOfLastGtidRows([{ gtid: '' }])).toBeUndefined();
    expect(gtidOfLastGtidRows(new Error('denied'))).toBeUndefined();
    expect(gtidOfLastGtidRows(undefined)).toBeUndefined();
  });
});

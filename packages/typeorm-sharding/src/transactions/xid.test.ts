import { describe, expect, it } from 'vitest';
import { branchXid, coordinatorOf, defaultXidPrefix, newGtrid, recoveredXid, XA_FORMAT_ID, xidSql } from './xid.js';

describe('xid', () => {
  it('names the data source, the coordinator and the participant, within XA limits', () => {
    const gtrid = newGtrid('tshabc', 37);
    expect(gtrid).toMatch(/^tshabc\.11\.[0-9a-f]{18}$/);
    expect(gtrid.length).toBeLessThanOrEqual(64);
    expect(coordinatorOf(gtrid, 'tshabc')).toBe(37);
    expect(branchXid(gtrid, 12)).toEqual({ gtrid, bqual: 'c' });
    expect(xidSql(branchXid(gtrid, 12))).toBe(`'${gtrid}','c',${XA_FORMAT_ID}`);
    expect(newGtrid('tshabc', 37)).not.toBe(gtrid);
  });

  it('reads back only its own ids from XA RECOVER: its formatID and its prefix', () => {
    const gtrid = newGtrid('app1', 0);
    const row = (formatID: number, g: string, b: string) => ({ formatID, gtrid_length: g.length, bqual_length: b.length, data: Buffer.from(g + b, 'latin1') });
    expect(recoveredXid(row(XA_FORMAT_ID, gtrid, '3'), 'app1')).toEqual({ gtrid, bqual: '3' });
    expect(recoveredXid(row(1, gtrid, '3'), 'app1')).toBeUndefined();
    expect(recoveredXid(row(XA_FORMAT_ID, gtrid, '3'), 'app2')).toBeUndefined();
    // A longer prefix that merely starts alike is another application's.
    expect(recoveredXid(row(XA_FORMAT_ID, newGtrid('app10', 0), '3'), 'app1')).toBeUndefined();
    expect(recoveredXid(row(XA_FORMAT_ID, 'app1.zz', '3'), 'app1')).toBeUndefined();
  });

  it('derives a stable default prefix from the default shard database, distinct per database', () => {
    expect(defaultXidPrefix('shop_0')).toBe(defaultXidPrefix('shop_0'));
    expect(defaultXidPrefix('shop_0')).not.toBe(defaultXidPrefix('other_0'));
    expect(defaultXidPrefix('shop_0')).toMatch(/^tsh[0-9a-z]+$/);
  });
});

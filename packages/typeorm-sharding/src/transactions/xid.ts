import { randomBytes } from 'node:crypto';
import { crc32 } from '../algorithms/index.js';

/**
 * An XA transaction id as this plugin writes it. The global part names the data source and the
 * coordinator; the branch part names the participant server, so that two configured servers
 * that are one physical server (two accounts) still get distinct branches:
 *
 *   gtrid = <prefix>.<coordinator log shard, base 36>.<18 random hex digits>
 *   bqual = <participant log shard, base 36>
 *
 * A server is named by the index of its log shard (its first shard in shard order), which
 * stays the same across processes and restarts of one application.
 */
export interface Xid {
  readonly gtrid: string;
  readonly bqual: string;
}

/** formatID of our XA ids ('tsh' in ASCII): another application's ids are told apart by it too. */
export const XA_FORMAT_ID = 0x747368;

/** A new global id whose decision lives in the log of the server with log shard `coordinator`. */
export function newGtrid(prefix: string, coordinator: number): string {
  return `${prefix}.${coordinator.toString(36)}.${randomBytes(9).toString('hex')}`;
}

/** The branch of `gtrid` on the server with log shard `participant`. */
export function branchXid(gtrid: string, participant: number): Xid {
  return { gtrid, bqual: participant.toString(36) };
}

/** The id as XA statements write it; every character is [A-Za-z0-9_.], so quoting is plain. */
export function xidSql(xid: Xid): string {
  return `'${xid.gtrid}','${xid.bqual}',${XA_FORMAT_ID}`;
}

/** The log shard of the coordinator named in `gtrid`, when `gtrid` carries `prefix`. */
export function coordinatorOf(gtrid: string, prefix: string): number | undefined {
  if (!gtrid.startsWith(`${prefix}.`)) return undefined;
  const parts = gtrid.slice(prefix.length + 1).split('.');
  if (parts.length !== 2 || !/^[0-9a-z]+$/.test(parts[0]!)) return undefined;
  return parseInt(parts[0]!, 36);
}

/** One row of `XA RECOVER`, as mysql2 returns it. */
export interface RecoveredRow {
  readonly formatID: number | string;
  readonly gtrid_length: number | string;
  readonly bqual_length: number | string;
  readonly data: Buffer | string;
}

/** The xid of an `XA RECOVER` row when it is one of ours (our formatID, `prefix`), else undefined. */
export function recoveredXid(row: RecoveredRow, prefix: string): Xid | undefined {
  if (Number(row.formatID) !== XA_FORMAT_ID) return undefined;
  const data = Buffer.isBuffer(row.data) ? row.data : Buffer.from(String(row.data), 'latin1');
  const g = Number(row.gtrid_length);
  const xid = { gtrid: data.subarray(0, g).toString('latin1'), bqual: data.subarray(g, g + Number(row.bqual_length)).toString('latin1') };
  return coordinatorOf(xid.gtrid, prefix) === undefined ? undefined : xid;
}

/** The default prefix: stable for one application (its default shard's database), distinct between applications. */
export function defaultXidPrefix(defaultShardDatabase: string): string {
  return `tsh${crc32(defaultShardDatabase).toString(36)}`;
}

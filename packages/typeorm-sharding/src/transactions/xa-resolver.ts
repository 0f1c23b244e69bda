import type { DecisionLog, DecisionRecord } from './decision-log.js';
import type { TransactionStep } from './transaction-options.js';
import { detachedXa, isUnknownXid } from './xa-branch.js';
import type { XaServer } from './xa-server.js';
import { coordinatorOf, recoveredXid, type RecoveredRow, type Xid } from './xid.js';

/** What the resolver needs from the coordinator. */
export interface ResolverHost {
  readonly prefix: string;
  readonly servers: readonly XaServer[];
  /** The log of the server whose id is `id`, when it is one of ours. */
  logOfId(id: number): DecisionLog | undefined;
  /** Undecided records younger than this (ms) may belong to a live commit: they are left alone. */
  readonly resolveAfterMs: number;
  step(step: TransactionStep, gtrid: string, servers: readonly string[], server?: string, outcome?: 'commit' | 'rollback'): Promise<void>;
  warn(message: string): void;
}

/** What one pass did. */
export interface ResolveReport {
  /** Prepared branches committed / rolled back by this pass. */
  readonly committed: number;
  readonly rolledBack: number;
  /** Prepared branches left for a later pass (undecided and young, still attached to a connection, or a server did not answer). */
  readonly pending: number;
}

interface InDoubt {
  readonly server: XaServer;
  readonly xid: Xid;
}

/**
 * Finishes the cross-server transactions that a process left prepared when it died: `XA
 * RECOVER` on every server lists the prepared branches; each of this data source's (its xid
 * prefix, the server's own id) is committed or rolled back as its coordinator's log says — no
 * record or `rollback`: roll back (presumed abort: a record is written before any branch is
 * prepared — inside the coordinator's uncommitted transaction, so a missing one is claimed with a
 * `rollback` record, which waits for that transaction's outcome); `commit`: commit; `prepared` and older than `resolveAfterMs`: claimed for
 * rollback, then rolled back (a coordinator still alive then fails its decision and rolls back
 * too). Records of finished transactions are removed.
 *
 * The log is read before the servers are listed: a record decided then has all its branches
 * prepared already, so one no server lists any more is finished.
 */
export async function resolveInDoubt(host: ResolverHost): Promise<ResolveReport> {
  const records = await Promise.all(host.servers.map(async (server) => {
    const log = host.logOfId(server.id)!;
    return { log, records: await log.list().catch(() => undefined) };
  }));
  const listings = await Promise.allSettled(host.servers.map((s) => s.query('XA RECOVER') as Promise<RecoveredRow[]>));
  const inDoubt = new Map<string, InDoubt[]>();
  listings.forEach((listing, i) => {
    if (listing.status === 'rejected') return;
    const server = host.servers[i]!;
    for (const row of listing.value) {
      const xid = recoveredXid(row, host.prefix);
      // Several configured servers may be one MariaDB (two accounts): each resolves its own branches.
      if (!xid || xid.bqual !== server.id.toString(36)) continue;
      inDoubt.set(xid.gtrid, [...(inDoubt.get(xid.gtrid) ?? []), { server, xid }]);
    }
  });
  let committed = 0;
  let rolledBack = 0;
  let pending = 0;
  for (const [gtrid, branches] of inDoubt) {
    const outcome = await outcomeOf(host, gtrid).catch(() => undefined);
    if (outcome === undefined) {
      pending += branches.length;
      continue;
    }
    for (const { server, xid } of branches) {
      try {
        await server.query(outcome === 'commit' ? detachedXa.commit(xid) : detachedXa.rollback(xid));
        if (outcome === 'commit') committed++;
        else rolledBack++;
        await host.step('resolved', gtrid, branches.map((b) => b.server.name), server.name, outcome);
      } catch (error) {
        pending++;
        // Unknown xid: finished meanwhile, or still attached to a connection its server has not seen close.
        if (isUnknownXid(error)) continue;
        host.warn(`The resolver could not ${outcome} the prepared branch of ${gtrid} on server ${server.name}: ${(error as Error).message}`);
      }
    }
  }
  if (listings.every((l) => l.status === 'fulfilled')) await tidy(host, records, inDoubt);
  return { committed, rolledBack, pending };
}

/** The decision for `gtrid`, or undefined while it may still be committing elsewhere. */
async function outcomeOf(host: ResolverHost, gtrid: string): Promise<'commit' | 'rollback' | undefined> {
  const coordinator = coordinatorOf(gtrid, host.prefix)!;
  const log = host.logOfId(coordinator);
  if (!log) {
    host.warn(`Transaction ${gtrid} names coordinator shard ${coordinator}, which is not the first shard of a server of this data source (was the topology changed while it was in doubt?); it is left prepared.`);
    return undefined;
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    const record = await log.read(gtrid);
    // No record in sight: a live coordinator may hold its uncommitted decision; the claim waits for it.
    if (!record) {
      if (await log.claimAbsent(gtrid)) return 'rollback';
      continue;
    }
    if (record.state === 'rollback') return 'rollback';
    if (record.state === 'commit') return 'commit';
    if (record.ageUs < host.resolveAfterMs * 1000) return undefined;
    if (await log.claimRollback(gtrid)) return 'rollback';
  }
  return undefined;
}

/** Removes records of finished transactions; claims old undecided records that no server lists (their commit died before any PREPARE). */
async function tidy(host: ResolverHost, snapshot: readonly { log: DecisionLog; records: DecisionRecord[] | undefined }[], inDoubt: ReadonlyMap<string, unknown>): Promise<void> {
  for (const { log, records } of snapshot) {
    if (!records) continue;
    const finished = records.filter((r) => r.state !== 'prepared' && !inDoubt.has(r.xid)).map((r) => r.xid);
    await log.forget(finished).catch(() => undefined);
    for (const r of records) {
      if (r.state === 'prepared' && !inDoubt.has(r.xid) && r.ageUs >= host.resolveAfterMs * 1000) await log.claimRollback(r.xid).catch(() => undefined);
    }
  }
}

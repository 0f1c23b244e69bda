import { committedOn, type Branch } from '../session/commit-protocol.js';
import type { DecisionLog } from './decision-log.js';
import { CommitOutcomeUnknownError, PrepareFailedError } from './transaction-errors.js';
import type { TransactionStep } from './transaction-options.js';
import { detachedXa, discardConnection, isServerError, protocolQuery, xa } from './xa-branch.js';
import type { XaServer } from './xa-server.js';
import type { Xid } from './xid.js';

/** What the commit needs from the data source's coordinator. */
export interface TwoPhaseHost {
  /** The log that holds the decision of `gtrid` (its coordinator server's). */
  logFor(gtrid: string): DecisionLog;
  server(name: string): XaServer;
  /** Reports a step to `onStep` (awaited). */
  step(step: TransactionStep, gtrid: string, servers: readonly string[], server?: string): Promise<void>;
  /** The transaction is finished on every server: its record may go. */
  finished(log: DecisionLog, gtrid: string): void;
  warn(message: string): void;
  /** Asks the resolver to run soon (a branch was left prepared). */
  nudge(): void;
}

type XaBranch = Branch & { readonly xid: Xid };

/**
 * Commits a transaction whose first server runs a local transaction (the coordinator) and
 * whose other servers run XA branches:
 *
 * 1. the commit decision is written to the coordinator server's log inside the coordinator's
 *    local transaction (seen by nobody until it commits), while each branch is ended (`XA END`);
 * 2. every branch is prepared (`XA PREPARE`);
 * 3. the decision: the coordinator's local transaction commits — its own work and the decision
 *    are durable together, or neither (a resolver meeting a prepared branch waits on the record's
 *    row lock for that outcome: `DecisionLog.claimAbsent`);
 * 4. every branch commits (`XA COMMIT`); the record is removed.
 *
 * Without a local part (no coordinator) the record is written as `prepared` in autocommit first
 * and becomes `commit` in autocommit after the PREPAREs.
 *
 * A failure before 3 rolls every part back and raises `PrepareFailedError` naming the server.
 * After 3 the transaction is committed: a branch that fails to commit is retried once on a
 * fresh connection, then left prepared for the resolver (a warning is logged, the caller sees
 * success). If the coordinator's COMMIT loses its connection, the log says what happened; when
 * it cannot be read either, `CommitOutcomeUnknownError` is raised and the resolver finishes the
 * branches the same way as the coordinator.
 */
export async function commitTwoPhase(host: TwoPhaseHost, gtrid: string, branches: readonly Branch[]): Promise<void> {
  const participants = branches.filter((b): b is XaBranch => b.xid !== undefined);
  const servers = branches.map((b) => b.server);
  const log = host.logFor(gtrid);
  const prepared = new Set<XaBranch>();
  /** The coordinator's local transaction, until it has ended. */
  let local = branches.find((b) => b.xid === undefined);
  const abort = async (server: string, reason: string, cause?: unknown): Promise<never> => {
    await rollBackAll(host, log, gtrid, local, participants, prepared, servers);
    throw new PrepareFailedError(server, reason, cause);
  };
  /** The outcome is not known here: the prepared branches are left to the resolver, detached from their connections. */
  const unknown = (error: unknown): never => {
    for (const p of participants) {
      discardConnection(p.runner);
      void p.runner.release().catch(() => undefined);
    }
    host.nudge();
    throw error;
  };

  /** With a coordinator its local transaction holds the decision: rolled back first (its row lock would hold up the claim). */
  const abortBeforeDecision = async (server: string, reason: string, cause?: unknown): Promise<never> => {
    if (local) {
      const coordinator = local;
      local = undefined;
      await rollBackCoordinator(coordinator);
    }
    return abort(server, reason, cause);
  };

  // 1. Record (before any PREPARE) and end the branches.
  const recorded = local ? log.recordCommit(gtrid, servers, local.runner) : log.record(gtrid, servers);
  const ended = await Promise.allSettled([recorded, ...participants.map((p) => xa.end(p.runner, p.xid))]);
  const endFailure = ended.findIndex((o) => o.status === 'rejected');
  if (endFailure >= 0) {
    const cause = (ended[endFailure] as PromiseRejectedResult).reason;
    if (endFailure === 0) return abortBeforeDecision(log.server.name, 'the decision log could not be written', cause);
    return abortBeforeDecision(participants[endFailure - 1]!.server, 'XA END failed', cause);
  }
  await host.step('recorded', gtrid, servers);

  // 2. Prepare.
  const prepares = await Promise.allSettled(participants.map(async (p) => {
    await xa.prepare(p.runner, p.xid);
    prepared.add(p);
    await host.step('prepared', gtrid, servers, p.server);
  }));
  const prepareFailure = prepares.findIndex((o) => o.status === 'rejected');
  if (prepareFailure >= 0) {
    const p = participants[prepareFailure]!;
    // Its PREPARE may have happened before the reply was lost: count it as prepared.
    prepared.add(p);
    return abortBeforeDecision(p.server, 'XA PREPARE failed', (prepares[prepareFailure] as PromiseRejectedResult).reason);
  }

  // 3. Decide: the coordinator's COMMIT (its decision is written); without one, in autocommit.
  if (!local) {
    let committed: boolean;
    try {
      committed = await log.decide(gtrid);
    } catch (cause) {
      // The UPDATE may have been durable.
      committed = await outcomeOf(log, gtrid, cause).catch(unknown);
    }
    if (!committed) return abort(log.server.name, 'the resolver of another process rolled it back: its prepare phase took longer than sharding.transactions.resolveAfterMs');
  }
  if (local) {
    const coordinator = local;
    local = undefined;
    let failure: unknown;
    await protocolQuery(coordinator.runner, 'COMMIT').then(
      (result: unknown) => committedOn(coordinator, result),
      (cause: unknown) => void (failure = cause ?? new Error('COMMIT failed')),
    );
    // An error the server reported: nothing was committed. A lost connection: the log tells.
    const lost = failure !== undefined && !isServerError(failure);
    if (lost) discardConnection(coordinator.runner);
    // A COMMIT the server refused leaves nothing committed; the ROLLBACK frees the record's row lock for the claim.
    else if (failure !== undefined) await coordinator.runner.query('ROLLBACK').catch(() => discardConnection(coordinator.runner));
    await coordinator.runner.release().catch(() => undefined);
    if (failure !== undefined && (!lost || !(await outcomeOf(log, gtrid, failure).catch(unknown)))) return abort(coordinator.server, 'COMMIT failed', failure);
  }
  await host.step('decided', gtrid, servers);

  // 4. Commit the branches.
  const commits = await Promise.all(participants.map(async (p) => {
    const done = await commitBranch(host, p);
    if (done) await host.step('committed', gtrid, servers, p.server);
    return done;
  }));
  if (commits.every(Boolean)) host.finished(log, gtrid);
  else host.nudge();
}

/** XA COMMIT on the branch's connection, else once more on a fresh one; false: left for the resolver. */
async function commitBranch(host: TwoPhaseHost, p: XaBranch): Promise<boolean> {
  try {
    committedOn(p, await xa.commit(p.runner, p.xid));
    return true;
  } catch (first) {
    // Closing the connection detaches the prepared branch, so that another connection can commit it.
    discardConnection(p.runner);
    await new Promise((resolve) => setTimeout(resolve, 50));
    try {
      committedOn(p, await host.server(p.server).query(detachedXa.commit(p.xid)));
      return true;
    } catch (second) {
      host.warn(`XA COMMIT of committed transaction ${p.xid.gtrid} failed on server ${p.server} (${(second as Error).message ?? (first as Error).message}); its part stays prepared (rows locked) until the resolver commits it.`);
      return false;
    }
  } finally {
    await p.runner.release().catch(() => undefined);
  }
}

/**
 * Whether the decision of `gtrid` is `commit`, after the decision's outcome was lost with a
 * connection: a record still `prepared` is claimed for rollback first (waiting for the row lock
 * of a COMMIT still in progress), so the answer is final. Throws `CommitOutcomeUnknownError`
 * when the log cannot be read.
 */
async function outcomeOf(log: DecisionLog, gtrid: string, cause: unknown): Promise<boolean> {
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      const record = await log.read(gtrid);
      if (record?.state === 'commit') return true;
      if (record?.state === 'rollback') return false;
      // No record: the COMMIT may still be running on the server; the claim waits for its row lock.
      if (record === undefined ? await log.claimAbsent(gtrid) : await log.claimRollback(gtrid)) return false;
    }
  } catch (readError) {
    throw new CommitOutcomeUnknownError(log.server.name, gtrid, readError);
  }
  throw new CommitOutcomeUnknownError(log.server.name, gtrid, cause);
}

/**
 * Rolls every part back before the decision: the coordinator's local transaction, each branch
 * (prepared or not). The record is claimed for rollback first, so that a branch this cannot
 * reach (its connection or server gone) is rolled back by the resolver without waiting.
 */
async function rollBackAll(host: TwoPhaseHost, log: DecisionLog, gtrid: string, coordinator: Branch | undefined, participants: readonly XaBranch[], prepared: ReadonlySet<XaBranch>, servers: readonly string[]): Promise<void> {
  const claimed = prepared.size > 0 ? await claimForRollback(log, gtrid) : true;
  const gone = await Promise.all([
    (async () => {
      if (coordinator) await rollBackCoordinator(coordinator);
      return true;
    })(),
    ...participants.map(async (p) => {
      const done = await xa.rollback(p.runner, p.xid, prepared.has(p));
      await p.runner.release().catch(() => undefined);
      return done || !prepared.has(p);
    }),
  ]);
  if (gone.every(Boolean) && claimed) host.finished(log, gtrid);
  else host.nudge();
  await host.step('rolled-back', gtrid, servers);
}

/** Rolls the coordinator's local transaction back and gives its connection back (closed when the ROLLBACK failed). */
async function rollBackCoordinator(coordinator: Branch): Promise<void> {
  await coordinator.runner.query('ROLLBACK').catch(() => discardConnection(coordinator.runner));
  await coordinator.runner.release().catch(() => undefined);
}

/** The record says `rollback` now (a `prepared` one claimed, or none there: written), so a resolver rolls back what this cannot reach. */
async function claimForRollback(log: DecisionLog, gtrid: string): Promise<boolean> {
  try {
    return (await log.claimRollback(gtrid)) || (await log.claimAbsent(gtrid));
  } catch {
    return false;
  }
}

import type { ShardTarget } from '../execute/shard-target.js';
import type { Branch, Join, OpeningStatement, SessionStatement, SessionTransaction } from '../session/commit-protocol.js';
import { sequentialCommit, openLocal, rollbackLocal } from '../session/sequential-commit.js';
import { CrossServerTransactionError } from './transaction-errors.js';
import { commitTwoPhase, type TwoPhaseHost } from './two-phase-commit.js';
import { xa } from './xa-branch.js';
import { branchXid, newGtrid, type Xid } from './xid.js';

/** What an XA transaction needs from its data source's coordinator. */
export interface XaHost extends TwoPhaseHost {
  readonly prefix: string;
  /** The server's id in transaction ids (the index of its first shard). */
  idOf(server: string): number;
  /** Why XA cannot be used (a server too old to keep prepared branches), or undefined. */
  readonly unavailable: string | undefined;
}

/**
 * One transaction of a session on a data source with several MySQL/MariaDB servers. The first
 * server it touches runs a plain local transaction — a transaction that stays on one server
 * pays nothing for XA — and becomes the coordinator; every later server joins as an XA branch
 * (`XA START`, after the isolation level, with the open savepoints replayed: MariaDB keeps
 * savepoints inside XA branches). COMMIT is then two-phase (see `commitTwoPhase`).
 */
export class XaTransaction implements SessionTransaction {
  private gtrid: string | undefined;

  constructor(private readonly host: XaHost) {}

  join(target: ShardTarget, joined: readonly Branch[], opening: readonly OpeningStatement[]): Join {
    if (joined.length === 0) return sequentialCommit.begin().join(target, joined, opening);
    if (this.host.unavailable !== undefined) {
      throw new CrossServerTransactionError(
        `This transaction already runs on server ${joined[0]!.server} and now reaches server ${target.server}, but it cannot commit on both atomically: ${this.host.unavailable}. Keep the transaction on one server, upgrade, or set sharding.transactions.crossServer: 'sequential' to commit server after server.`,
        target.server,
      );
    }
    this.gtrid ??= newGtrid(this.host.prefix, this.host.idOf(joined[0]!.server));
    const xid = branchXid(this.gtrid, this.host.idOf(target.server));
    const branch: Branch = { server: target.server, target, runner: target.createRunner('master'), kind: 'own', xid };
    return { branch, open: () => openBranch(branch, xid, opening) };
  }

  async commit(branches: readonly Branch[], statement: SessionStatement): Promise<void> {
    if (this.gtrid === undefined || !branches.some((b) => b.xid !== undefined)) return sequentialCommit.begin().commit(branches, statement);
    await commitTwoPhase(this.host, this.gtrid, branches);
  }

  async rollback(branches: readonly Branch[], statement: SessionStatement): Promise<void> {
    const branchesOf = branches.filter((b) => b.xid !== undefined);
    await Promise.all(branchesOf.map(async (b) => {
      await xa.rollback(b.runner, b.xid!, false);
      await b.runner.release().catch(() => undefined);
    }));
    await rollbackLocal(branches.filter((b) => b.xid === undefined), statement);
    if (this.gtrid !== undefined && branchesOf.length > 0) await this.host.step('rolled-back', this.gtrid, branches.map((b) => b.server));
  }
}

/** Replays the opening statements with `XA START` in place of the BEGIN; on failure nothing stays open on the connection. */
function openBranch(branch: Branch, xid: Xid, opening: readonly OpeningStatement[]): Promise<void> {
  const statements = opening.map((o) => (o.kind === 'begin' ? { sql: xa.start(xid), parameters: [] } : o.statement));
  // An XA branch refuses ROLLBACK: it is ended and rolled back, or its connection closed.
  return openLocal(branch, statements, async () => void (await xa.rollback(branch.runner, xid, false)));
}

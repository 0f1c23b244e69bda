import type { QueryRunner } from 'typeorm';
import type { AttachedRunner } from '../../execute/attached-runner.js';
import type { ShardTarget } from '../../execute/shard-target.js';
import type { Branch, CommitProtocol, Join, OpeningStatement, SessionStatement, SessionTransaction } from '../../session/commit-protocol.js';
import { rollbackLocal, sequentialCommit } from '../../session/sequential-commit.js';
import { CrossServerTransactionError } from '../transaction-errors.js';
import { attachmentsOf, type Attachment } from './attachments.js';
import { checkDeferredKeys } from './deferred-keys.js';
import { qualifyForSchema } from './qualify-statement.js';
import { ATOMIC_JOURNAL_MODES, sqliteDbOf, type SqliteDb } from './sqlite-handle.js';
import { touchesOnly } from './verify-schema.js';

/** Qualified statements kept per attached schema (SQLite writes values into the text: bounded). */
const REWRITES_KEPT = 500;

/**
 * Transactions over SQLite shard files: the first shard a transaction touches runs it on its own
 * connection, and every other shard file it reaches is ATTACHed to that connection, its
 * statements written with the attached schema's name. One COMMIT then covers every file, and
 * SQLite makes it atomic even across a crash (a super-journal names every file) as long as no
 * file is in WAL mode (checked when a shard joins).
 *
 * Shards in memory cannot be attached to another connection: a transaction over several of
 * them commits each in turn, after checking that none can refuse its COMMIT (a deferred foreign
 * key still violated, see `checkDeferredKeys`); none survives a crash anyway. A transaction that mixes files and
 * memory, spans a WAL file, or needs more files than SQLite attaches is refused
 * (`CrossServerTransactionError`) before the statement that would reach the extra shard runs.
 */
export const attachCommit: CommitProtocol = {
  begin: () => new AttachTransaction(),
};

class AttachTransaction implements SessionTransaction {
  join(target: ShardTarget, joined: readonly Branch[], opening: readonly OpeningStatement[]): Join {
    const local = () => sequentialCommit.begin().join(target, joined, opening);
    const hub = joined.find((b) => b.kind === 'own');
    if (!hub) return local();
    const hubDb = sqliteDbOf(hub.target);
    const db = sqliteDbOf(target);
    if (hubDb.memory && db.memory) return local();
    if (hubDb.memory || db.memory) {
      throw new CrossServerTransactionError(
        `This transaction runs on shard ${hub.server} and now reaches shard ${target.server}, but one of them is in memory and the other a file: they cannot commit atomically together. Keep such shards in separate transactions, or set sharding.transactions.crossServer: 'sequential'.`,
        target.server,
      );
    }
    const schema = `tsh_shard_${target.index}`;
    let attachment: Attachment | undefined;
    const rewrites = new Map<string, string>();
    const runner: AttachedRunner = {
      runsOn: hub.target,
      rewrite: (sql, parameters) => {
        let out = rewrites.get(sql);
        if (out !== undefined) return out;
        out = qualifyForSchema(sql, schema);
        if (out === undefined || !touchesOnly(hubDb, out, parameters, attachment!.seq)) {
          throw new CrossServerTransactionError(
            `This statement reaches shard ${target.server} inside a transaction that began on shard ${hub.server}, whose connection holds the transaction; there the statement must name every table with shard ${target.server}'s schema, which cannot be done with certainty for it (a CTE, a TEMP object, or a table that is not the shard's). Run it in a transaction of its own, or outside one. Statement: ${sql}`,
            target.server,
          );
        }
        if (rewrites.size >= REWRITES_KEPT) rewrites.delete(rewrites.keys().next().value as string);
        rewrites.set(sql, out);
        return out;
      },
    };
    const inUse = new Set(joined.filter((b) => b.kind === 'attached').map((b) => `tsh_shard_${b.target.index}`));
    const branch: Branch = { server: target.server, target, runner: runner as unknown as QueryRunner, kind: 'attached' };
    return {
      branch,
      open: async () => {
        attachment = attachmentsOf(hubDb).attach(schema, db.name, inUse, target.server);
        checkJournalMode(hubDb, 'main', hub.server);
        checkJournalMode(hubDb, schema, target.server);
      },
    };
  }

  async commit(branches: readonly Branch[], statement: SessionStatement): Promise<void> {
    // The attached files commit with their first shard's connection; shards in memory one by one.
    const own = branches.filter((b) => b.kind === 'own');
    if (own.length > 1) {
      try {
        checkDeferredKeys(own);
      } catch (error) {
        await rollbackLocal(own, { sql: 'ROLLBACK', parameters: [] }).catch(() => undefined);
        throw error;
      }
    }
    return sequentialCommit.begin().commit(own, statement);
  }

  rollback(branches: readonly Branch[], statement: SessionStatement): Promise<void> {
    return rollbackLocal(branches.filter((b) => b.kind === 'own'), statement);
  }
}

function checkJournalMode(db: SqliteDb, schema: string, shard: string): void {
  // A read opens the file as it is now: another connection may have switched it to WAL.
  db.prepare(`SELECT COUNT(*) FROM "${schema}".sqlite_master`).all();
  const mode = String(db.pragma(`"${schema}".journal_mode`, { simple: true })).toLowerCase();
  if (ATOMIC_JOURNAL_MODES.has(mode)) return;
  throw new CrossServerTransactionError(
    `Shard ${shard} uses journal_mode ${mode.toUpperCase()}: SQLite commits a transaction over several files atomically only with a rollback journal (DELETE, TRUNCATE or PERSIST), not in WAL (or without a journal). Keep the transaction on one shard, switch the shards' journal mode, or set sharding.transactions.crossServer: 'sequential'.`,
    shard,
  );
}

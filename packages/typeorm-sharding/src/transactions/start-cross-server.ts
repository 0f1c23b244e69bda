import type { SqlDialect } from '../parameterize/index.js';
import type { ServerPool } from '../servers/server-pool.js';
import type { Topology } from '../servers/topology.js';
import type { CommitProtocol } from '../session/commit-protocol.js';
import { sequentialCommit } from '../session/sequential-commit.js';
import { attachCommit } from './sqlite/attach-commit.js';
import { resolveTransactionOptions, type TransactionOptions } from './transaction-options.js';
import { XaCoordinator } from './xa-coordinator.js';
import type { XaServer } from './xa-server.js';
import { defaultXidPrefix } from './xid.js';

/** The commit protocol of a data source's sessions, and the XA coordinator behind it when there is one. */
export interface CrossServerTransactions {
  readonly protocol: CommitProtocol;
  readonly xa?: XaCoordinator | undefined;
}

/**
 * Chooses how transactions that reach several servers commit (see `sharding.transactions`) and,
 * for XA, starts the coordinator: checks the servers, creates the logs and resolves what a dead
 * process left in doubt, before the data source runs anything else.
 */
export async function startCrossServerTransactions(
  dialect: SqlDialect,
  topology: Topology,
  pools: readonly ServerPool[],
  options: TransactionOptions | undefined,
  log: (level: 'warn', message: string) => void,
): Promise<CrossServerTransactions> {
  const settings = resolveTransactionOptions(options);
  if (settings.crossServer === 'sequential') return { protocol: sequentialCommit };
  if (dialect === 'sqlite') return { protocol: attachCommit };
  // A server that holds no shard is never reached.
  const servers: XaServer[] = topology.servers.flatMap((server, i) => {
    const first = topology.shards.find((s) => s.server === i);
    if (!first || first.database === undefined) return [];
    return [{ name: server.name, id: first.index, logDatabase: first.database, query: (sql: string, parameters?: readonly unknown[]) => pools[i]!.query(sql, parameters ?? [], undefined) }];
  });
  if (servers.length < 2) return { protocol: sequentialCommit };
  const xa = new XaCoordinator(servers, settings, settings.xidPrefix ?? defaultXidPrefix(topology.shards[0]!.database ?? ''), log);
  await xa.start();
  return { protocol: xa, xa };
}

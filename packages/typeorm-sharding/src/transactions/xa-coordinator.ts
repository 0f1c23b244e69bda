import type { CommitProtocol, SessionTransaction } from '../session/commit-protocol.js';
import { DecisionLog } from './decision-log.js';
import { RecordJanitor } from './record-janitor.js';
import { xaUnsafeReason } from './server-version.js';
import type { TransactionSettings, TransactionStep } from './transaction-options.js';
import { XaTransaction, type XaHost } from './xa-transaction.js';
import { resolveInDoubt, type ResolveReport, type ResolverHost } from './xa-resolver.js';
import type { XaServer } from './xa-server.js';
import { coordinatorOf } from './xid.js';

/**
 * Cross-server transactions of one ShardedDataSource on MySQL/MariaDB: the commit protocol its
 * sessions use (XA two-phase commit with a decision log, see `XaTransaction`), the logs (one
 * table per server), and the resolver that finishes what a dead process left prepared — at
 * `start()` (from `initialize()`) and then every `resolveIntervalMs` until `stop()`.
 */
export class XaCoordinator implements CommitProtocol, XaHost, ResolverHost {
  readonly logs: ReadonlyMap<number, DecisionLog>;
  private readonly byName: ReadonlyMap<string, XaServer>;
  private readonly janitor = new RecordJanitor();
  private timer: NodeJS.Timeout | undefined;
  private nudged: NodeJS.Timeout | undefined;
  private pass: Promise<ResolveReport> | undefined;
  private stopped = false;
  unavailable: string | undefined;

  constructor(
    readonly servers: readonly XaServer[],
    private readonly settings: TransactionSettings,
    readonly prefix: string,
    private readonly log: (level: 'warn', message: string) => void,
  ) {
    this.logs = new Map(servers.map((s) => [s.id, new DecisionLog(s, settings.logTable)]));
    this.byName = new Map(servers.map((s) => [s.name, s]));
  }

  get resolveAfterMs(): number {
    return this.settings.resolveAfterMs;
  }

  begin(): SessionTransaction {
    return new XaTransaction(this);
  }

  /**
   * Checks that every server keeps prepared branches across disconnects (else cross-server
   * transactions are refused, with a warning now), creates the log tables, resolves what is in
   * doubt, and starts the periodic resolver.
   */
  async start(): Promise<void> {
    const versions = await Promise.all(this.servers.map(async (s) => ({ s, reason: xaUnsafeReason(String(((await s.query('SELECT VERSION() AS v')) as { v: string }[])[0]?.v ?? '')) })));
    const unsafe = versions.find((v) => v.reason !== undefined);
    if (unsafe) {
      this.unavailable = `server ${unsafe.s.name}: ${unsafe.reason}`;
      this.log('warn', `typeorm-sharding: transactions over several servers are refused (CrossServerTransactionError): ${this.unavailable}. Set sharding.transactions.crossServer: 'sequential' to commit them server after server instead.`);
      return;
    }
    await this.ensureLogs();
    await this.resolve();
    if (this.settings.resolveIntervalMs !== false) {
      this.timer = setInterval(() => void this.resolve().catch(() => undefined), this.settings.resolveIntervalMs).unref();
    }
  }

  /** Creates the log tables that are missing (again after `dropSchema`). */
  async ensureLogs(): Promise<void> {
    if (this.unavailable === undefined) await Promise.all([...this.logs.values()].map((l) => l.ensure()));
  }

  /** Stops the resolver (waiting for a pass under way) and removes the records of finished transactions. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.nudged);
    await this.pass?.catch(() => undefined);
    await this.janitor.flush();
  }

  /** One resolver pass now (passes never overlap: a call during one waits for it). */
  resolve(): Promise<ResolveReport> {
    this.pass ??= resolveInDoubt(this).finally(() => (this.pass = undefined));
    return this.pass;
  }

  idOf(server: string): number {
    return this.byName.get(server)!.id;
  }

  server(name: string): XaServer {
    return this.byName.get(name)!;
  }

  logOfId(id: number): DecisionLog | undefined {
    return this.logs.get(id);
  }

  logFor(gtrid: string): DecisionLog {
    return this.logs.get(coordinatorOf(gtrid, this.prefix)!)!;
  }

  async step(step: TransactionStep, xid: string, servers: readonly string[], server?: string, outcome?: 'commit' | 'rollback'): Promise<void> {
    if (!this.settings.onStep) return;
    try {
      await this.settings.onStep({ step, xid, servers, ...(server === undefined ? {} : { server }), ...(outcome === undefined ? {} : { outcome }) });
    } catch (error) {
      this.warn(`sharding.transactions.onStep threw at step ${step} of ${xid}: ${(error as Error).message}`);
    }
  }

  finished(log: DecisionLog, gtrid: string): void {
    this.janitor.forget(log, gtrid);
  }

  warn(message: string): void {
    this.log('warn', `typeorm-sharding: ${message}`);
  }

  nudge(): void {
    if (this.stopped || this.nudged) return;
    this.nudged = setTimeout(() => {
      this.nudged = undefined;
      void this.resolve().catch(() => undefined);
    }, 200).unref();
  }
}

import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canStartMariadb } from '../support/mariadb-cluster.js';
import { ensureLibraryBuilt } from '../support/built-library.js';
import { Account } from './support/xa-entities.js';
import { logRecords, rowsEverywhere, startXaEnv, type XaEnv } from './support/xa-env.js';

// Issue 11: a process running transfers across three servers is killed with SIGKILL at a chosen
// step of a cross-server commit (after the record, after a PREPARE, after the decision, after a
// COMMIT); a new ShardedDataSource initialises, resolves what is in doubt, and every transaction
// is then all-or-nothing on every server, the balances add up, and no branch is left prepared.

const here = dirname(fileURLToPath(import.meta.url));
const STEPS = ['recorded', 'prepared', 'decided', 'committed'] as const;
/** Kills per step: 25 × 4 steps = the 100 trials (`XA_CRASH_KILLS_PER_STEP` to change it). */
const KILLS_PER_STEP = Number(process.env.XA_CRASH_KILLS_PER_STEP ?? 25);
const WORKERS = 6;
const ACCOUNTS = 30;
const START_BALANCE = 1000;

interface LegRow {
  txid: string;
  accountId: number;
  delta: number;
  legs: number;
}

describe.runIf(canStartMariadb())('a crash at any step of a cross-server commit (3 MariaDB servers, child process killed)', () => {
  let env: XaEnv;
  let dir: string;

  beforeAll(async () => {
    ensureLibraryBuilt();
    env = await startXaEnv(`xacr_${process.pid}`);
    dir = mkdtempSync(join(tmpdir(), 'tsh-xa-crash-'));
    const ds = await env.source({}).initialize();
    await ds.synchronize();
    await ds.getRepository(Account).insert(Array.from({ length: ACCOUNTS }, (_, i) => ({ id: i + 1, balance: START_BALANCE })));
    await ds.destroy();
  }, 120_000);

  afterAll(async () => {
    await env?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the worker until it kills itself at the `killAt`-th `killStep`; returns its journal. */
  async function runUntilKilled(trial: number, killStep: string, killAt: number): Promise<string[]> {
    const journal = join(dir, `trial-${trial}.log`);
    const config = { prefix: env.prefix, servers: env.servers, shardsPerServer: env.shardsPerServer, accounts: ACCOUNTS, workers: WORKERS, killStep, killAt, trial, journal };
    const child = spawn(process.execPath, [join(here, 'support', 'crash-worker.mjs')], { env: { ...process.env, CONFIG: JSON.stringify(config) }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('exit', (c, s) => resolve([c, s])));
    const lines = readFileSync(journal, 'utf8').trim().split('\n');
    const outcomes: Record<string, number> = {};
    for (const l of lines.filter((x) => x.startsWith('end '))) outcomes[l.split(' ')[2]!] = (outcomes[l.split(' ')[2]!] ?? 0) + 1;
    expect(signal, `worker of trial ${trial} was not killed (exit ${code}; outcomes ${JSON.stringify(outcomes)}): ${stderr}`).toBe('SIGKILL');
    return lines;
  }

  /** A new data source recovers; its resolver runs until nothing of ours is left prepared or recorded. */
  async function recover(): Promise<void> {
    const ds = await env.source({ transactions: { resolveAfterMs: 0, resolveIntervalMs: false } }).initialize();
    try {
      // A killed client's branches detach when its server notices the closed connection: passes repeat until then.
      for (let pass = 0; pass < 100; pass++) {
        const report = await ds.resolveTransactions();
        const prepared = (await Promise.all(env.nodes.map((_, i) => env.recover(i)))).flat();
        const records = await logRecords(env);
        if (report.pending === 0 && prepared.length === 0 && records.length === 0) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await ds.destroy();
    }
  }

  it(`${STEPS.length * KILLS_PER_STEP} kills, ${WORKERS} transactions in flight at each: all-or-nothing on every server, balances intact, XA RECOVER empty`, async () => {
    const categories = new Map<string, number>();
    let inFlight = 0;
    for (let trial = 0; trial < STEPS.length * KILLS_PER_STEP; trial++) {
      const killStep = STEPS[trial % STEPS.length]!;
      const lines = await runUntilKilled(trial, killStep, 1 + ((trial * 7) % 25));
      const begun = lines.filter((l) => l.startsWith('begin ')).length;
      inFlight += begun - lines.filter((l) => l.startsWith('end ')).length;
      const killer = lines.at(-1)!.split(' ');
      expect(killer[1]).toBe(killStep);
      categories.set(categoryOf(lines, killer[2]!), (categories.get(categoryOf(lines, killer[2]!)) ?? 0) + 1);

      await recover();

      // Every server: no prepared branch, no decision record left.
      for (const [i] of env.nodes.entries()) expect(await env.recover(i)).toEqual([]);
      expect(await logRecords(env)).toEqual([]);
      // Each transaction wrote one leg per account it moved money on: all of them or none.
      const legs = await rowsEverywhere<LegRow>(env, 'xa_legs');
      const byTx = new Map<string, LegRow[]>();
      for (const leg of legs) byTx.set(leg.txid, [...(byTx.get(leg.txid) ?? []), leg]);
      for (const [txid, found] of byTx) {
        expect(found.length, `transaction ${txid} is committed on some servers only`).toBe(found[0]!.legs);
        expect(found.reduce((s, l) => s + l.delta, 0)).toBe(0);
      }
      // And every balance is its start plus the legs that committed.
      const accounts = await rowsEverywhere<{ id: number; balance: number }>(env, 'xa_accounts');
      expect(accounts).toHaveLength(ACCOUNTS);
      for (const a of accounts) expect(a.balance, `account ${a.id}`).toBe(START_BALANCE + legs.filter((l) => l.accountId === a.id).reduce((s, l) => s + l.delta, 0));
    }
    expect(inFlight).toBeGreaterThanOrEqual(100);
    // The killing transaction was caught before any PREPARE, part-way through its PREPAREs, after the decision, part-way through its COMMITs.
    expect(Object.fromEntries(categories)).toEqual({ 'before any PREPARE': KILLS_PER_STEP, 'some PREPAREs': KILLS_PER_STEP, 'after the decision': KILLS_PER_STEP, 'some COMMITs': KILLS_PER_STEP });
  }, 600_000);
});

/** Where the killing transaction `xid` was, by the journal. */
function categoryOf(lines: readonly string[], xid: string): string {
  const steps = lines.filter((l) => l.startsWith('step ') && l.split(' ')[2] === xid).map((l) => l.split(' ')[1]);
  const servers = Number(lines.find((l) => l.split(' ')[2] === xid)!.split(' ')[4]);
  const count = (s: string) => steps.filter((x) => x === s).length;
  if (count('committed') > 0) return count('committed') < servers - 1 ? 'some COMMITs' : 'every COMMIT';
  if (count('decided') > 0) return 'after the decision';
  if (count('prepared') > 0) return count('prepared') < servers - 1 ? 'some PREPAREs' : 'every PREPARE';
  return 'before any PREPARE';
}

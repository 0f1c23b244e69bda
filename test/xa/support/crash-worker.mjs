// A process that runs transfers between accounts on different servers and kills itself with
// SIGKILL at a chosen step of a cross-server commit (the crash-recovery test starts it).
//   CONFIG (JSON): { prefix, servers, shardsPerServer, accounts, workers, killStep, killAt, trial, journal }
// Every transaction writes "begin <txid>" to the journal before it starts and "end <txid>" once
// it returns (synchronously, so that a kill loses nothing written before it), and "step <name>
// <xid> <server>" at each commit step.
import { openSync, writeSync } from 'node:fs';
import { Account, Leg } from './entities.mjs';
import { accountsByServer, xaDataSource } from './topology.mjs';

const config = JSON.parse(process.env.CONFIG);
const journal = openSync(config.journal, 'a');
const note = (line) => writeSync(journal, `${line}\n`);
let seen = 0;
const firsts = new Set();

const ds = xaDataSource({
  ...config,
  sharding: {
    transactions: {
      resolveIntervalMs: false,
      onStep: (e) => {
        note(`step ${e.step} ${e.xid} ${e.server ?? '-'} ${e.servers.length}`);
        // PREPARE and COMMIT kills come from the first such step of a three-server transaction: one of its two branches is done.
        const perBranch = e.step === 'prepared' || e.step === 'committed';
        const first = perBranch && e.servers.length === 3 && !firsts.has(`${e.step} ${e.xid}`);
        if (first) firsts.add(`${e.step} ${e.xid}`);
        const counts = e.step === config.killStep && (!perBranch || first);
        if (counts && ++seen === config.killAt) process.kill(process.pid, 'SIGKILL');
      },
    },
  },
});
await ds.initialize();
const byServer = [...accountsByServer(ds, Account, config.accounts).values()];

// mulberry32: the same choices for the same trial.
let seed = (config.trial * 7919 + 17) >>> 0;
const random = (n) => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
};

/** 2 or 3 accounts, each on a different server, and the amounts moved between them (summing to 0). */
function legs() {
  const order = byServer.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = random(i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  const servers = order.slice(0, 2 + random(byServer.length - 1));
  const ids = servers.map((s) => byServer[s][random(byServer[s].length)]);
  const amounts = ids.map(() => 1 + random(9));
  amounts[0] = -amounts.slice(1).reduce((a, b) => a + b, 0);
  return ids.map((id, i) => [id, amounts[i]]);
}

async function worker(w) {
  for (let n = 0; n < 200; n++) {
    const txid = `${config.trial}-${w}-${n}`;
    const moves = legs();
    note(`begin ${txid}`);
    try {
      await ds.transaction(async (em) => {
        for (const [id, delta] of moves) {
          await em.increment(Account, { id }, 'balance', delta);
          await em.insert(Leg, { txid, accountId: id, delta, legs: moves.length });
        }
      });
      note(`end ${txid} ok`);
    } catch (error) {
      note(`end ${txid} ${error?.code ?? error?.name}`);
    }
  }
}

await Promise.all(Array.from({ length: config.workers }, (_, w) => worker(w)));
await ds.destroy();

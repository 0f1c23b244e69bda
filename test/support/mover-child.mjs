// A mover in a process of its own, for the kill tests: `node mover-child.mjs <action> <move id>`
// with the Mover's options as JSON in TSH_MOVER_OPTIONS. TSH_KILL_AT=<fault point> (and
// TSH_KILL_AFTER=n, default 1) ends the process with SIGKILL the n-th time the mover reaches
// that point, the way an operator's kill -9 or a crashed host would.
import { Mover } from '../../packages/typeorm-sharding/dist/index.js';

const [action, idText] = process.argv.slice(2);
const id = Number(idText);
const killAt = process.env.TSH_KILL_AT;
let left = Number(process.env.TSH_KILL_AFTER ?? 1);
const mover = new Mover({
  ...JSON.parse(process.env.TSH_MOVER_OPTIONS),
  faultPoint: (point) => {
    if (point === killAt && --left <= 0) process.kill(process.pid, 'SIGKILL');
  },
});

/** Runs the workflow from whatever state the ledger holds up to `switched`. */
async function drive() {
  for (let step = 0; step < 12; step++) {
    const { state } = (await mover.status(id)).move;
    if (state === 'planned' || state === 'copying' || state === 'failed') await mover.start(id, { chunkRows: 20 });
    else if (state === 'catching_up') {
      const result = await mover.verify(id, { chunkBuckets: 16 });
      const bad = Object.values(result).flatMap((r) => r.mismatches);
      if (bad.length > 0) {
        console.error('verify mismatch', JSON.stringify(bad));
        process.exit(3);
      }
    } else if (state === 'verified' || state === 'cutting_over') await mover.switch(id);
    else return state;
  }
  throw new Error('the workflow did not reach switched');
}

try {
  if (action === 'drive') console.log(await drive());
  else if (action === 'rollback') console.log((await mover.rollback(id)).move.state);
  else if (action === 'complete') console.log((await mover.complete(id, { clientTimeoutMs: 2000 })).move.state);
  else throw new Error(`unknown action ${action}`);
} finally {
  await mover.close();
}

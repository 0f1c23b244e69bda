import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { SingleBar, Presets } from 'cli-progress';
import { ShardingError } from '../errors/index.js';
import { ReshardingError } from '../resharding/errors.js';
import { reshardingOf } from '../resharding/from-data-source.js';
import type { BucketSpan } from '../resharding/move-plan.js';
import type { MoveStatus, Mover } from '../resharding/workflow.js';
import { loadDataSource } from './load-data-source.js';

/** Exit codes of `typeorm-sharding reshard`. */
export const EXIT = { ok: 0, refused: 1, usage: 2, mismatch: 3, internal: 70 } as const;

/** Where the command writes (tests capture it). */
export interface CommandIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** Progress bars only on a terminal. */
  readonly tty: boolean;
}

const int = (name: string) => (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a non-negative integer, got "${value}".`);
  return n;
};

/** `0-127,200-210` → spans. */
export function parseRanges(text: string): BucketSpan[] {
  return text.split(',').map((part) => {
    const m = /^\s*(\d+)(?:\s*-\s*(\d+))?\s*$/.exec(part);
    if (!m) throw new InvalidArgumentError(`"${part}" is not a bucket range (from-to, e.g. 0-127).`);
    return { from: Number(m[1]), to: Number(m[2] ?? m[1]) };
  });
}

function describeStatus(s: MoveStatus): string {
  const { move } = s;
  const lines = [
    `move ${move.id}: ${move.state}  ${move.spec.source} -> ${move.spec.target}  buckets ${move.spec.ranges.map((r) => `${r.from}-${r.to}`).join(',')}`,
    `  topology v${move.fromVersion}${move.toVersion ? ` -> v${move.toVersion}` : ''}; rows copied ${s.rowsCopied}; forward lag ${s.forwardLagBytes ?? '-'} bytes${s.reverseLagBytes !== undefined ? `; reverse lag ${s.reverseLagBytes} bytes` : ''}${s.lastPauseMs !== undefined ? `; write pause ${s.lastPauseMs} ms` : ''}`,
  ];
  for (const t of s.tables) {
    const v = t.verify ? `verify ${t.verify.mismatches.length === 0 ? 'ok' : `${t.verify.mismatches.length} row(s) differ`} (${t.verify.rows} rows, ${t.verify.chunks} chunks)` : 'not verified';
    lines.push(`  ${t.table}: ${t.rowsCopied} rows${t.copyDone ? ' (copied)' : ''}; ${v}`);
  }
  if (move.error) lines.push(`  last error: ${move.error}`);
  return lines.join('\n');
}

/** Builds the `reshard` command; `run` receives the loaded mover for each action. */
export function reshardProgram(io: CommandIo, onExit: (code: number) => void): Command {
  const program = new Command('typeorm-sharding').exitOverride().configureOutput({ writeOut: io.out, writeErr: io.err });
  const reshard = program.command('reshard').description('Move bucket ranges between shards and servers while the application runs');
  const withMover = (action: (mover: Mover, args: unknown[]) => Promise<number | void>) => async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const file = (command.optsWithGlobals() as { dataSource: string }).dataSource;
    const ds = await loadDataSource(file);
    await ds.initialize();
    const mover = reshardingOf(ds);
    try {
      onExit((await action(mover, args)) ?? EXIT.ok);
    } finally {
      await mover.close();
      await ds.destroy();
    }
  };
  const bar = (label: string): SingleBar | undefined => (io.tty ? new SingleBar({ format: `${label} [{bar}] {value}/{total} {unit}` }, Presets.shades_classic) : undefined);
  const dataSource = '-d, --data-source <file>';
  const dsHelp = 'the module exporting your ShardedDataSource (as TypeORM\'s CLI -d)';
  const id = int('move id');

  reshard
    .command('plan')
    .description('plan a move (or --split / --move-shard) and prepare the target')
    .requiredOption(dataSource, dsHelp)
    .option('--source <shard>', 'the shard the buckets leave')
    .requiredOption('--target <shard>', 'the shard they go to (new: give --server and --database)')
    .option('--ranges <list>', 'bucket ranges, e.g. 0-127,300-310', parseRanges)
    .option('--split <shard>', 'move the upper half of this shard\'s buckets to the new --target')
    .option('--move-shard <shard>', 'move every bucket of this shard to the new --target')
    .option('--server <name>', 'server of a new target shard')
    .option('--database <name>', 'database of a new target shard')
    .action(
      withMover(async (mover, args) => {
        const o = args[0] as { source?: string; target: string; ranges?: BucketSpan[]; split?: string; moveShard?: string; server?: string; database?: string };
        const modes = [o.ranges !== undefined, o.split !== undefined, o.moveShard !== undefined].filter(Boolean).length;
        if (modes !== 1) throw new ReshardingError('bad-plan', 'Give exactly one of --ranges (with --source), --split or --move-shard.');
        const newShard = o.server || o.database ? { server: o.server ?? '', database: o.database ?? '' } : undefined;
        if (newShard && (!o.server || !o.database)) throw new ReshardingError('bad-plan', 'A new target shard needs both --server and --database.');
        let moveId: number;
        if (o.split || o.moveShard) {
          if (!newShard) throw new ReshardingError('bad-plan', `${o.split ? '--split' : '--move-shard'} needs the new shard's --server and --database.`);
          moveId = o.split ? await mover.split(o.split, o.target, newShard.server, newShard.database) : await mover.moveShard(o.moveShard!, o.target, newShard.server, newShard.database);
        } else {
          if (!o.source) throw new ReshardingError('bad-plan', '--ranges needs --source.');
          moveId = await mover.plan({ source: o.source, target: o.target, ranges: o.ranges!, ...(newShard ? { newShard } : {}) });
        }
        io.out(`planned move ${moveId}\n${describeStatus(await mover.status(moveId))}\n`);
      }),
    );

  reshard
    .command('start')
    .argument('<id>', 'move id', id)
    .description('copy from a consistent snapshot (resumes after a kill), then catch up from the binlog')
    .requiredOption(dataSource, dsHelp)
    .option('--chunk-rows <n>', 'rows per chunk', int('--chunk-rows'), 1000)
    .option('--rows-per-second <n>', 'throttle the copy (0: no limit)', int('--rows-per-second'), 0)
    .action(
      withMover(async (mover, args) => {
        const moveId = args[0] as number;
        const o = args[1] as { chunkRows: number; rowsPerSecond: number };
        const progress = bar('copy');
        let copied = 0;
        progress?.start(1, 0, { unit: 'rows' });
        try {
          const status = await mover.start(moveId, {
            chunkRows: o.chunkRows,
            rowsPerSecond: o.rowsPerSecond,
            onChunk: (e) => {
              copied += e.rows;
              progress?.setTotal(Math.max(copied + o.chunkRows, 1));
              progress?.update(copied);
            },
          });
          progress?.setTotal(copied);
          progress?.update(copied);
          progress?.stop();
          io.out(`${describeStatus(status)}\n`);
        } finally {
          progress?.stop();
        }
      }),
    );

  reshard
    .command('status')
    .argument('[id]', 'move id (default: every move)', id)
    .requiredOption(dataSource, dsHelp)
    .option('--json', 'machine-readable output')
    .action(
      withMover(async (mover, args) => {
        const moveId = args[0] as number | undefined;
        const o = args[1] as { json?: boolean };
        const ids = moveId === undefined ? (await mover.list()).map((m) => m.id) : [moveId];
        const all = [];
        for (const one of ids) all.push(await mover.status(one));
        io.out(o.json ? `${JSON.stringify(all, null, 2)}\n` : `${all.map(describeStatus).join('\n') || 'no moves'}\n`);
      }),
    );

  reshard
    .command('verify')
    .argument('<id>', 'move id', id)
    .description('checksum source and target chunk by chunk; name the rows that differ')
    .requiredOption(dataSource, dsHelp)
    .option('--chunk-buckets <n>', 'buckets per checksum chunk', int('--chunk-buckets'), 64)
    .action(
      withMover(async (mover, args) => {
        const moveId = args[0] as number;
        const o = args[1] as { chunkBuckets: number };
        const status = await mover.status(moveId);
        const buckets = status.move.spec.ranges.reduce((n, r) => n + r.to - r.from + 1, 0);
        const progress = bar('verify');
        progress?.start(Math.ceil(buckets / o.chunkBuckets) * status.tables.length, 0, { unit: 'chunks' });
        let done = 0;
        const result = await mover.verify(moveId, { chunkBuckets: o.chunkBuckets, onChunk: () => progress?.update(++done) });
        progress?.stop();
        let bad = 0;
        for (const [table, r] of Object.entries(result)) {
          io.out(`${table}: ${r.rows} rows in ${r.chunks} chunks, ${r.mismatches.length === 0 ? 'equal' : `${r.mismatches.length} row(s) differ`}\n`);
          for (const m of r.mismatches.slice(0, 50)) io.out(`  ${m.kind} ${JSON.stringify(m.key)}\n`);
          bad += r.mismatches.length;
        }
        return bad === 0 ? EXIT.ok : EXIT.mismatch;
      }),
    );

  reshard
    .command('switch')
    .argument('<id>', 'move id', id)
    .description('fence the moving buckets, catch up, publish the new topology version (reverse stream kept)')
    .requiredOption(dataSource, dsHelp)
    .option('--max-lag-bytes <n>', 'refuse while the catch-up is further behind', int('--max-lag-bytes'), 1_000_000)
    .option('--in-flight-timeout-ms <n>', 'how long to wait for open transactions', int('--in-flight-timeout-ms'), 5000)
    .action(
      withMover(async (mover, args) => {
        const o = args[1] as { maxLagBytes: number; inFlightTimeoutMs: number };
        io.out(`${describeStatus(await mover.switch(args[0] as number, { maxLagBytes: o.maxLagBytes, inFlightTimeoutMs: o.inFlightTimeoutMs }))}\n`);
      }),
    );

  for (const [name, description] of [
    ['catch-up', 'apply the binlog to the target up to now (before the switch) or the reverse stream (after it)'],
    ['rollback', 'give the buckets back to the source, with every write made since the switch'],
    ['complete', 'after every client adopted the new version: delete the moved rows from the source'],
    ['cancel', 'abandon a move before its switch: source untouched, target cleaned'],
  ] as const) {
    reshard
      .command(name)
      .argument('<id>', 'move id', id)
      .description(description)
      .requiredOption(dataSource, dsHelp)
      .option('--client-timeout-ms <n>', 'complete: how long to wait for clients to adopt the new version', int('--client-timeout-ms'), 30_000)
      .action(
        withMover(async (mover, args) => {
          const moveId = args[0] as number;
          const o = args[1] as { clientTimeoutMs: number };
          if (name === 'catch-up') {
            const s = await mover.status(moveId);
            if (s.move.state === 'switched') await mover.catchUpReverse(moveId);
            else await mover.catchUp(moveId);
            io.out(`${describeStatus(await mover.status(moveId))}\n`);
            return;
          }
          const status = name === 'rollback' ? await mover.rollback(moveId) : name === 'complete' ? await mover.complete(moveId, { clientTimeoutMs: o.clientTimeoutMs }) : await mover.cancel(moveId);
          io.out(`${describeStatus(status)}\n`);
        }),
      );
  }
  return program;
}

/** Runs the command line; resolves with the exit code. */
export async function runReshard(argv: readonly string[], io: CommandIo): Promise<number> {
  let code: number = EXIT.ok;
  const program = reshardProgram(io, (c) => (code = c));
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (error instanceof ShardingError) {
      io.err(`error (${error instanceof ReshardingError ? error.problem : error.code}): ${error.message}\n`);
      return EXIT.refused;
    }
    io.err(`unexpected error: ${(error as Error)?.stack ?? String(error)}\n`);
    return EXIT.internal;
  }
}

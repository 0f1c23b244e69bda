#!/usr/bin/env node
import 'reflect-metadata';
import { runReshard } from './reshard-command.js';

// `typeorm-sharding reshard plan|start|status|verify|switch|catch-up|rollback|complete|cancel -d <file>`
const code = await runReshard(process.argv.slice(2), {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  tty: Boolean(process.stderr.isTTY),
});
process.exitCode = code;

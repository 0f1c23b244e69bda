#!/usr/bin/env node
// Runs TypeORM's own functional tests (test/functional of the checkout in TYPEORM_SRC) on one
// plain DataSource and on a 4-shard ShardedDataSource, per backend, and classifies every test:
//
//   passed   sharded passes (and plain passes)
//   refused  sharded fails with a typed refusal (UnsupportedShardingError, ShardingConfigError …)
//   crashed  sharded fails with any other error where plain passes
//   wrong    sharded fails an assertion where plain passes
//   skipped  pending, not run on this backend (no data source of it was used), or failing on
//            the plain DataSource too (then it says nothing about sharding)
//
// Usage: TYPEORM_SRC=/path/to/typeorm node test/typeorm-functional/run.mjs
//          [--backend sqlite|mariadb|both] [dir-or-file under test/functional …]
// Without paths it runs the directories listed in suites.txt. Results of the directories run
// replace their rows in results.<backend>.tsv; refusals.tsv, decisions.<backend>.tsv and
// SUMMARY.md are rewritten from the results.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const checkout = process.env.TYPEORM_SRC;
if (!checkout || !existsSync(path.join(checkout, 'test', 'functional'))) {
  console.error('Set TYPEORM_SRC to a checkout of typeorm/typeorm (see README, "TypeORM\'s functional tests").');
  process.exit(2);
}
const functional = path.join(checkout, 'test', 'functional');

const args = process.argv.slice(2);
let backends = ['sqlite', 'mariadb'];
const paths = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--backend') {
    const b = args[++i];
    backends = b === 'both' ? ['sqlite', 'mariadb'] : [b];
  } else paths.push(args[i]);
}
const units = paths.length > 0
  ? paths
  : readFileSync(path.join(here, 'suites.txt'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));

function testFilesOf(unit) {
  const full = path.join(functional, unit);
  if (!existsSync(full)) throw new Error(`no ${unit} under ${functional}`);
  if (statSync(full).isFile()) return [full];
  const found = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.test.ts')) found.push(p);
    }
  };
  walk(full);
  return found;
}

const scratch = path.join(repo, '.tmp', 'typeorm-functional');
mkdirSync(scratch, { recursive: true });

function runMode(backend, mode, files, out, decisions) {
  const env = {
    ...process.env,
    TYPEORM_SRC: checkout,
    TF_BACKEND: backend,
    TF_MODE: mode,
    TF_OUT: out,
    TF_DECISIONS: decisions,
    TZ: 'UTC',
  };
  const result = spawnSync(process.execPath, ['--enable-source-maps', '--require', path.join(here, 'register-ts.cjs'), path.join(here, 'run-mocha.ts'), ...files], {
    cwd: repo,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: Number(process.env.TF_UNIT_TIMEOUT_MS ?? 20 * 60_000),
    maxBuffer: 64 * 1024 * 1024,
  });
  const tail = String(result.stderr ?? '').trim().split('\n').slice(-3).join(' / ');
  if (result.status !== 0 && result.status !== null) process.stderr.write(`  (${mode}: exit ${result.status}${tail ? `: ${tail.slice(0, 300)}` : ''})\n`);
  if (result.signal) process.stderr.write(`  (${mode}: ${result.signal}, a test hung or the unit timed out)\n`);
}

function readOutcomes(file) {
  if (!existsSync(file)) return new Map();
  const map = new Map();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const o = JSON.parse(line);
    map.set(`${o.file}\t${o.title}`, o);
  }
  return map;
}

const clean = (text) => String(text ?? '').replace(/[\t\n\r]+/g, ' ').trim();

function classify(plain, sharded) {
  if (!sharded) return ['crashed', 'the sharded run ended before this test reported (process crash or hang)'];
  if (sharded.state === 'pending' || plain?.state === 'pending') return ['skipped', 'pending'];
  if (!plain) return ['skipped', 'the plain run did not report it'];
  if (plain.state === 'failed') return ['skipped', `fails on a plain DataSource: ${plain.error?.name}: ${plain.error?.message}`];
  if (sharded.state === 'passed') return sharded.exercised || plain.exercised ? ['passed', ''] : ['skipped', 'not run on this backend'];
  const e = sharded.error;
  const detail = `${e.name}${e.code ? ` [${e.code}]` : ''}: ${e.message}`;
  if (e.kind === 'refusal') return ['refused', detail];
  if (e.kind === 'assertion') return ['wrong', detail];
  return ['crashed', `${detail} @ ${e.stack ?? ''}`];
}

const CLASSES = ['passed', 'refused', 'crashed', 'wrong', 'skipped'];

function readTsv(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').slice(1).filter(Boolean).map((l) => l.split('\t'));
}

for (const backend of backends) {
  console.log(`== ${backend}`);
  const resultsFile = path.join(here, `results.${backend}.tsv`);
  const decisionsFile = path.join(here, `decisions.${backend}.tsv`);
  let rows = readTsv(resultsFile);
  let decisionRows = readTsv(decisionsFile);
  for (const unit of units) {
    const files = testFilesOf(unit);
    if (files.length === 0) continue;
    const started = Date.now();
    const outs = {};
    const decisionsOut = path.join(scratch, `${backend}-decisions.jsonl`);
    rmSync(decisionsOut, { force: true });
    for (const mode of ['plain', 'sharded']) {
      outs[mode] = path.join(scratch, `${backend}-${mode}.jsonl`);
      rmSync(outs[mode], { force: true });
      runMode(backend, mode, files, outs[mode], decisionsOut);
    }
    const plain = readOutcomes(outs.plain);
    const sharded = readOutcomes(outs.sharded);
    const keys = [...new Set([...plain.keys(), ...sharded.keys()])].sort();
    const relFiles = new Set(files.map((f) => path.relative(functional, f)));
    rows = rows.filter((r) => !relFiles.has(r[0]));
    const counts = Object.fromEntries(CLASSES.map((c) => [c, 0]));
    for (const key of keys) {
      const [file, title] = key.split('\t');
      const [cls, detail] = classify(plain.get(key), sharded.get(key));
      counts[cls]++;
      rows.push([file, clean(title), cls, clean(detail).slice(0, 900)]);
    }
    decisionRows = decisionRows.filter((r) => !relFiles.has(r[0]));
    const seen = new Set();
    const decided = existsSync(decisionsOut) ? readFileSync(decisionsOut, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
    for (const d of decided) {
      const row = [d.file, d.entity, d.distribution + (d.key ? ` by ${d.key}` : ''), clean(d.reason).slice(0, 300), clean(d.outcome).slice(0, 300)];
      const k = row.join('\t');
      if (seen.has(k)) continue;
      seen.add(k);
      decisionRows.push(row);
    }
    const secs = ((Date.now() - started) / 1000).toFixed(0);
    console.log(`${unit}: ${CLASSES.map((c) => `${c} ${counts[c]}`).join(', ')} (${secs} s)`);
    // Written after each unit, so that an interrupted run keeps what it measured.
    rows.sort((a, b) => (a[0] + a[1]).localeCompare(b[0] + b[1]));
    writeFileSync(resultsFile, ['file\ttest\tclass\tdetail', ...rows.map((r) => r.join('\t'))].join('\n') + '\n');
    decisionRows.sort((a, b) => (a[0] + a[1]).localeCompare(b[0] + b[1]));
    writeFileSync(decisionsFile, ['file\tentity\tdistribution\treason\toutcome', ...decisionRows.map((r) => r.join('\t'))].join('\n') + '\n');
  }
}

// refusals.tsv and SUMMARY.md from every backend's results.
const summary = ['# TypeORM functional tests on a 4-shard ShardedDataSource', '', 'Written by `run.mjs`; see the README section "TypeORM\'s functional tests".', ''];
const refusals = ['backend\tfile\ttest\trefusal'];
summary.push('| backend | passed | refused | crashed | wrong | skipped | total |', '|---|---|---|---|---|---|---|');
for (const backend of ['sqlite', 'mariadb']) {
  const rows = readTsv(path.join(here, `results.${backend}.tsv`));
  if (rows.length === 0) continue;
  const counts = Object.fromEntries(CLASSES.map((c) => [c, 0]));
  for (const r of rows) counts[r[2]]++;
  summary.push(`| ${backend} | ${CLASSES.map((c) => counts[c]).join(' | ')} | ${rows.length} |`);
  for (const r of rows.filter((x) => x[2] === 'refused')) refusals.push([backend, r[0], r[1], r[3]].join('\t'));
}
writeFileSync(path.join(here, 'refusals.tsv'), refusals.join('\n') + '\n');
writeFileSync(path.join(here, 'SUMMARY.md'), summary.join('\n') + '\n');
console.log(summary.slice(4).join('\n'));

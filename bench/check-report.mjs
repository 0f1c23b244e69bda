#!/usr/bin/env node
// Validates the structure of bench/results/REPORT.md (CI smoke test after `pnpm bench --quick`):
// every section, the targets table with a status per row, complete tables, and the SVG
// charts it references (present, well-formed, with data). Never checks timings.
//   node bench/check-report.mjs [path/to/REPORT.md]
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REQUIRED_SECTIONS, CHARTS } from './lib/report.mjs';
import { IN_SIZES, CONCURRENCY } from './cases/matrix.mjs';
import { BY_HAND_SIZES, BY_HAND_CONCURRENCY } from './cases/by-hand.mjs';
import { PLANNER_CASES } from './cases/planner.mjs';
import { OFFSETS } from './cases/deep-paging.mjs';
import { FAILOVER_CASES, ROUTER_VARIANTS } from './cases/router.mjs';
import { DECISION_CASES } from './lib/router-decision.mjs';
import { XA_CLIENTS, XA_VARIANTS } from './cases/xa-commit.mjs';

const file = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), 'results', 'REPORT.md'));
const problems = [];
const fail = (m) => problems.push(m);

if (!existsSync(file)) {
  console.error(`check-report: ${file} does not exist (run \`pnpm bench --quick\` first)`);
  process.exit(1);
}
const text = readFileSync(file, 'utf8');
const lines = text.split('\n');

if (!lines[0]?.startsWith('# ')) fail('the report does not start with a title');
for (const h of REQUIRED_SECTIONS) if (!lines.includes(h)) fail(`missing section "${h}"`);

/** Rows of the first markdown table after heading `h` (header and separator excluded). */
function tableAfter(h) {
  const at = lines.indexOf(h);
  if (at < 0) return [];
  const rows = [];
  let i = at + 1;
  while (i < lines.length && !lines[i].startsWith('|')) {
    if (lines[i].startsWith('## ')) return [];
    i++;
  }
  const header = lines[i];
  if (!header || !/^\|[-| ]+\|$/.test(lines[i + 1] ?? '')) return [];
  const width = header.split('|').length;
  for (i += 2; i < lines.length && lines[i].startsWith('|'); i++) {
    const cells = lines[i].split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
    if (lines[i].split(/(?<!\\)\|/).length !== width) fail(`${h}: row "${lines[i].slice(0, 60)}…" has ${cells.length} cells, the header has ${width - 2}`);
    rows.push(cells);
  }
  return rows;
}

// Targets: one row per target, each with a known status.
const targets = tableAfter('## Targets');
if (targets.length < 14) fail(`## Targets: expected at least 14 target rows, found ${targets.length}`);
for (const r of targets) {
  const status = r[r.length - 1] ?? '';
  if (!/^(✅ met|❌ missed|⚠️ failed: .+|— not run)$/.test(status)) fail(`## Targets: row ${r[0]} has no valid status ("${status}")`);
  if (!r[2]) fail(`## Targets: row ${r[0]} has no goal`);
}

const value = /^(—|failed: .*|not supported yet.*|[\d,.]+( ?[×%]| µs| ms| MiB)?( ?[✅❌])?|[\d.,]+ \/ [\d.,]+)$/;
function checkTable(h, expectedRows, label) {
  const rows = tableAfter(h);
  if (rows.length !== expectedRows) fail(`${h}: expected ${expectedRows} ${label} rows, found ${rows.length}`);
  for (const r of rows) {
    if (r.some((c) => c === '' || c === 'undefined' || c === 'NaN' || /\bNaN\b|undefined/.test(c))) fail(`${h}: row "${r.join(' | ').slice(0, 80)}" has an empty or NaN cell`);
  }
  return rows;
}
// The shape the run declared (quick mode runs fewer client counts); a full run must have the article's.
const shapeLine = text.match(/<!-- bench-shape (\{.*\}) -->/);
let shape;
try {
  shape = JSON.parse(shapeLine?.[1] ?? 'null');
} catch {
  shape = undefined;
}
if (!shape) {
  fail('no <!-- bench-shape … --> line');
  shape = { quick: false, inSizes: IN_SIZES, clients: CONCURRENCY, byHand: { sizes: BY_HAND_SIZES, clients: BY_HAND_CONCURRENCY }, planner: PLANNER_CASES.length * 2, planCache: 2, offsets: OFFSETS };
}
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
if (!same(shape.inSizes, IN_SIZES)) fail(`IN sizes ${JSON.stringify(shape.inSizes)} ≠ the article's ${JSON.stringify(IN_SIZES)}`);
if (!shape.quick && !same(shape.clients, CONCURRENCY)) fail(`a full run must use clients ${JSON.stringify(CONCURRENCY)}; got ${JSON.stringify(shape.clients)}`);
if (!Array.isArray(shape.clients) || shape.clients.length < 2) fail('the matrix needs at least two client counts');
if (shape.quick !== /quick mode/.test(lines.slice(0, 6).join('\n'))) fail('the header and the bench-shape line disagree about quick mode');
const CLIENTS = shape.clients;
const matrixRows = checkTable("## 1. The article's study: IN size × concurrency × pruning", IN_SIZES.length * CLIENTS.length, 'IN size × clients');
for (const n of IN_SIZES) for (const c of CLIENTS) if (!matrixRows.some((r) => r[0] === String(n) && r[1] === String(c))) fail(`matrix: no row for IN ${n}, ${c} clients`);
for (const r of matrixRows) for (const cell of r.slice(2)) if (!value.test(cell)) fail(`matrix: unexpected cell "${cell}"`);
checkTable('## 2. Sharded against unsharded', IN_SIZES.length * CLIENTS.length, 'IN size × clients');
checkTable('## 3. Plugin overhead: findOneBy', 3, 'backend');
checkTable('## 4. Against doing it by hand', BY_HAND_SIZES.length * BY_HAND_CONCURRENCY.length, 'IN size × clients');
checkTable('## 5. Planner alone', PLANNER_CASES.length * 2, 'dialect × query');
checkTable('## 6. Plan cache', 2, 'dialect');
checkTable('## 7. Deep paging', OFFSETS.length, 'OFFSET');
checkTable('## 8. Query router: read throughput with replicas', ROUTER_VARIANTS.length, 'variant');
checkTable('### 8a. Failover time', FAILOVER_CASES.length, 'detection');
checkTable('### 8b. Routing decision at a route-cache hit', DECISION_CASES.length, 'decision case');
checkTable('## 9. Transactions across servers', XA_CLIENTS.length * XA_VARIANTS.length, 'clients × variant');

// Charts: each referenced, present and well-formed.
const referenced = [...text.matchAll(/!\[[^\]]*\]\(([^)]+\.svg)\)/g)].map((m) => m[1]);
for (const chart of Object.values(CHARTS)) {
  if (!referenced.includes(chart)) fail(`chart ${chart} is not referenced in the report`);
  const path = join(dirname(file), chart);
  if (!existsSync(path)) {
    fail(`chart ${chart} is missing`);
    continue;
  }
  const svg = readFileSync(path, 'utf8').trim();
  if (!svg.startsWith('<svg') || !svg.endsWith('</svg>')) fail(`${chart} is not an <svg> document`);
  // Tags must nest: a stack walk over every tag.
  const stack = [];
  for (const m of svg.matchAll(/<(\/?)([a-zA-Z][\w-]*)[^>]*?(\/?)>/g)) {
    if (m[3]) continue;
    if (!m[1]) stack.push(m[2]);
    else if (stack.pop() !== m[2]) {
      fail(`${chart}: </${m[2]}> does not close the open element`);
      break;
    }
  }
  if (stack.length) fail(`${chart}: unclosed <${stack[stack.length - 1]}>`);
  if (!/<polyline|<circle/.test(svg)) fail(`${chart} has no data points`);
  if (/NaN|undefined/.test(svg)) fail(`${chart} contains NaN/undefined`);
}

if (problems.length) {
  console.error(`check-report: ${file} is not well-formed:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(`check-report: ${file} OK (${targets.length} targets, ${referenced.length} charts)`);

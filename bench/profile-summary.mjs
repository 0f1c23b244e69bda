#!/usr/bin/env node
// Summarises a V8 .cpuprofile (from `node --cpu-prof`): top functions by self time and by
// inclusive time, with file:line, as a share of all samples.
//   node bench/profile-summary.mjs <file.cpuprofile> [--top=25] [--filter=typeorm-sharding] [--by-module] [--callers=functionName]
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--'));
if (!file) {
  console.error('usage: node bench/profile-summary.mjs <file.cpuprofile> [--top=25] [--filter=substring]');
  process.exit(2);
}
const top = Number(args.find((a) => a.startsWith('--top='))?.slice(6) ?? 25);
const filter = args.find((a) => a.startsWith('--filter='))?.slice(9);
const byModule = args.includes('--by-module');
const callersOf = args.find((a) => a.startsWith('--callers='))?.slice(10);
const prof = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const selfCount = new Map();
for (const s of prof.samples) selfCount.set(s, (selfCount.get(s) ?? 0) + 1);
const total = prof.samples.length;
const short = (url) => url.replace(/^file:\/\//, '').replace(/.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, '').replace(/.*\/packages\//, 'packages/').replace(/.*\/bench\//, 'bench/');
const keyOf = (n) => `${n.callFrame.functionName || '(anonymous)'}\t${short(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
const self = new Map();
const incl = new Map();
for (const [id, count] of selfCount) {
  const n = byId.get(id);
  const k = keyOf(n);
  self.set(k, (self.get(k) ?? 0) + count);
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const kk = keyOf(byId.get(cur));
    if (seen.has(kk)) continue;
    seen.add(kk);
    incl.set(kk, (incl.get(kk) ?? 0) + count);
  }
}
const print = (title, map) => {
  console.log(`\n${title} (${total} samples)`);
  [...map]
    .filter(([k]) => !filter || k.includes(filter))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([k, v]) => console.log(`${((v / total) * 100).toFixed(1).padStart(5)}%  ${k.replace('\t', ' ')}`));
};
/** Package a frame belongs to: typeorm-sharding, typeorm, mysql2, node, bench, (gc), … */
function moduleOf(key) {
  const [fn, url] = key.split('\t');
  if (url.startsWith('packages/typeorm-sharding')) return 'typeorm-sharding (the plugin)';
  const m = /^(@[^/]+\/[^/]+|[^/:]+)\//.exec(url);
  if (url.startsWith('node:')) return 'node internals';
  if (url.startsWith('bench/')) return 'bench harness';
  if (m && !url.startsWith('/')) return m[1];
  if (fn.startsWith('(') && url.startsWith(':')) return fn;
  return url.startsWith(':') ? 'native (syscalls, C++)' : 'other';
}
if (callersOf) {
  // Stacks (outermost frames first, 6 deep above the function) that lead to callersOf, by samples.
  const stacks = new Map();
  for (const [id, count] of selfCount) {
    const chain = [];
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) chain.push(keyOf(byId.get(cur)).replace('\t', ' '));
    const at = chain.findIndex((k) => k.startsWith(`${callersOf} `));
    if (at < 0) continue;
    const key = chain.slice(at, at + 7).reverse().join('\n      ← ');
    stacks.set(key, (stacks.get(key) ?? 0) + count);
  }
  console.log(`\ncall paths into ${callersOf} (${total} samples)`);
  [...stacks].sort((a, b) => b[1] - a[1]).slice(0, top).forEach(([k, v]) => console.log(`${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}\n`));
} else if (byModule) {
  const mods = new Map();
  for (const [k, v] of self) mods.set(moduleOf(k), (mods.get(moduleOf(k)) ?? 0) + v);
  print('self time by package', mods);
} else {
  print('self time', self);
  print('inclusive time', incl);
}

/**
 * Dependencies point down the pipeline (DESIGN.md §2): a folder of `src/` may import from its
 * own layer and the layers before it, never from a later one. The foundation (errors, the
 * lexer, the algorithms, value semantics) comes first; the wiring (engine, data source) last.
 * A new folder must be given its layer here before it compiles into the suite.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));

/** Layer of each folder of `src/`; a file may import folders of its layer or a lower one. */
const LAYERS: Readonly<Record<string, number>> = {
  errors: 0,
  parameterize: 1,
  algorithms: 1,
  values: 2,
  decorators: 3,
  // The query router's building blocks depend on the errors alone; statements carry its descriptor.
  router: 3,
  rules: 4,
  plan: 5,
  route: 6,
  rewrite: 7,
  write: 7,
  log: 8,
  servers: 8,
  session: 9,
  execute: 9,
  merge: 10,
  transactions: 10,
  // Global indexes: lookup tables' entities and their maintenance, driven by the engine.
  indexes: 10,
  engine: 11,
  keys: 11,
  // The shared, versioned topology (store, fence, refresh), used by the data source.
  topology: 11,
  'data-source': 12,
  // The online move workflow: drives shards' databases, the fence and the topology store.
  resharding: 13,
  cli: 14,
  // src/index.ts
  '.': 15,
};

/**
 * Type-only imports allowed against the order, each with its reason:
 * - `data-source/options.ts` is the options contract (types only): any stage may name the
 *   option or event types it serves;
 * - the plan's output describes its merge in the merge's own spec types (as a Vitess plan is
 *   made of engine primitives); the merge's code stays out of the plan.
 */
const TYPE_ONLY_EXCEPTIONS: readonly { readonly from: string; readonly to: RegExp }[] = [
  { from: '*', to: /^data-source\/options\.ts$/ },
  { from: 'plan', to: /^merge\// },
];

interface ImportEdge {
  readonly file: string;
  readonly target: string;
  readonly typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'testing' ? [] : sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.fixture.ts') ? [path] : [];
  });
}

/** Relative imports and re-exports of one file, resolved to paths under `src/`. */
function importsOf(file: string): ImportEdge[] {
  const text = readFileSync(file, 'utf8');
  const edges: ImportEdge[] = [];
  const pattern = /^(import|export)\s+(type\s+)?[^;]*?from\s+'(\.[^']+)'/gms;
  for (const m of text.matchAll(pattern)) {
    const target = relative(SRC, resolve(dirname(file), m[3]!)).split(sep).join('/').replace(/\.js$/, '.ts');
    edges.push({ file: relative(SRC, file).split(sep).join('/'), target, typeOnly: m[2] !== undefined });
  }
  return edges;
}

/** The folder of a path under `src/` ('.' for a file at the top). */
function folderOf(path: string): string {
  return path.includes('/') ? path.slice(0, path.indexOf('/')) : '.';
}

/** Why `edge` goes against the order, or undefined when it does not. */
function problemOf(edge: ImportEdge): string | undefined {
  const from = folderOf(edge.file);
  const to = folderOf(edge.target);
  const fromLayer = LAYERS[from];
  const toLayer = LAYERS[to];
  if (fromLayer === undefined) return `${edge.file}: folder "${from}" has no layer in layers.test.ts`;
  if (toLayer === undefined) return `${edge.file}: imports "${edge.target}", whose folder has no layer in layers.test.ts`;
  if (toLayer <= fromLayer) return undefined;
  const excused = edge.typeOnly && TYPE_ONLY_EXCEPTIONS.some((e) => (e.from === '*' || e.from === from) && e.to.test(edge.target));
  return excused ? undefined : `${edge.file} (layer ${fromLayer}, ${from}) imports ${edge.target} (layer ${toLayer}, ${to})${edge.typeOnly ? ' (type only)' : ''}`;
}

describe('layers', () => {
  it('every import points to the same or an earlier stage of the pipeline', () => {
    const problems = sourceFiles(SRC).flatMap((file) => importsOf(file).flatMap((edge) => problemOf(edge) ?? []));
    expect(problems).toEqual([]);
  });

  it('reads every import of a file, type-only ones marked', () => {
    const edges = importsOf(join(SRC, 'engine', 'physical-planner.ts'));
    expect(edges.some((e) => e.target === 'plan/select/bind-merge.ts' && !e.typeOnly)).toBe(true);
    expect(edges.some((e) => e.target === 'data-source/options.ts' && e.typeOnly)).toBe(true);
  });

  it.each([
    ['plan/analyze.ts', 'session/shard-session.ts', true],
    ['route/evaluate-condition.ts', 'merge/index.ts', false],
    ['rules/table-rule.ts', 'plan/plan.ts', true],
    ['plan/select/select-merge.ts', 'merge/index.ts', false],
    ['execute/executor.ts', 'engine/sharding-engine.ts', true],
  ] as const)('refuses %s importing %s (type only: %s)', (file, target, typeOnly) => {
    expect(problemOf({ file, target, typeOnly })).toMatch(/imports/);
  });

  it.each([
    ['plan/select/select-merge.ts', 'merge/index.ts'],
    ['log/physical-query-log.ts', 'data-source/options.ts'],
  ] as const)('allows the type-only exception %s → %s', (file, target) => {
    expect(problemOf({ file, target, typeOnly: true })).toBeUndefined();
  });
});

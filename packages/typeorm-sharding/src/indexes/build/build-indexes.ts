import { ShardingConfigError } from '../../errors/index.js';
import type { GlobalIndex } from '../../rules/index.js';
import { checkIndexes, type CheckHost } from '../check/check-indexes.js';
import type { IndexFinding } from '../check/index-findings.js';
import { reconcileEntry, type RepairAction } from '../check/reconcile-entry.js';
import { quoted } from '../statement-text.js';
import { readBuildStates, writeBuildState, type BuildPhase, type BuildState } from './build-state.js';

/** Options of `ShardedDataSource.buildIndexes()`. */
export interface BuildIndexesOptions {
  /**
   * Owner rows per chunk: each chunk's entries and the build's cursor commit in one transaction.
   * @default 500
   */
  readonly chunkSize?: number;
  /** Build only the indexes of these owner tables (or these lookup tables). @default every index that is not ready */
  readonly tables?: readonly string[];
  /**
   * Called after each chunk committed. What it throws stops the build, as a killed process
   * would; the next `buildIndexes()` resumes after the last committed chunk.
   */
  readonly onChunk?: (progress: { readonly lookupTable: string; readonly rows: number; readonly cursor: readonly unknown[] }) => void | Promise<void>;
}

/** What `buildIndexes()` did for one index. */
export interface IndexBuildReport {
  readonly lookupTable: string;
  /** `ready`: reads use it now; `conflicts`: values are owned twice (see `conflicts`), it stays write-only. */
  readonly phase: Exclude<BuildPhase, 'backfilling'>;
  /** True when the backfill went on from a cursor a previous run left. */
  readonly resumed: boolean;
  readonly chunks: number;
  /** Owner rows the backfill read. */
  readonly rows: number;
  /** Entries written or corrected by the backfill and the verification. */
  readonly repairs: number;
  /** The values owned twice that keep the index from being used. */
  readonly conflicts: readonly IndexFinding[];
}

/** What building needs beyond checking: to run the state table's statements and to make an index readable. */
export interface BuildHost extends CheckHost {
  /** Called when an index's phase changes (the engine routes reads through `ready` indexes only). */
  onPhase(lookupTable: string, phase: BuildPhase): void;
}

/**
 * Builds the indexes recorded as `backfilling` or `conflicts` (Vitess's online vindex creation,
 * backfill then `externalize`): while the index is write-only (every write maintains it, no read
 * uses it), the owner rows are read in primary-key order in chunks, scattered; each chunk's
 * entries are reconciled (`reconcileEntry`: read again under locks, so that writes running
 * meanwhile stay right) and the cursor is saved in the same transaction. Then the index is
 * checked with repair; without values owned twice it becomes `ready` and reads use it.
 */
export async function buildIndexes(indexes: readonly GlobalIndex[], host: BuildHost, options: BuildIndexesOptions = {}): Promise<IndexBuildReport[]> {
  const chunkSize = options.chunkSize ?? 500;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new ShardingConfigError(`buildIndexes: chunkSize must be a positive integer; got ${JSON.stringify(options.chunkSize)}.`);
  const wanted = options.tables?.map((t) => t.toLowerCase());
  const states = new Map((await readBuildStates(host.query, host.dialect)).map((s) => [s.lookupTable, s]));
  const reports: IndexBuildReport[] = [];
  for (const index of indexes) {
    const state = states.get(index.lookupTable);
    if (!state || state.phase === 'ready') continue;
    if (wanted && !wanted.includes(index.table.toLowerCase()) && !wanted.includes(index.lookupTable.toLowerCase())) continue;
    reports.push(await buildOne(index, state, host, chunkSize, options.onChunk));
  }
  return reports;
}

async function buildOne(index: GlobalIndex, state: BuildState, host: BuildHost, chunkSize: number, onChunk: BuildIndexesOptions['onChunk']): Promise<IndexBuildReport> {
  const q = (c: string) => quoted(c, host.dialect);
  const keys = index.owner.primaryColumns.map((c) => c.databaseName);
  if (keys.length === 0) throw new ShardingConfigError(`buildIndexes: ${index.owner.name} has no primary key to read its rows in order by.`);
  const columns = [...new Set([...keys, ...index.columns, index.ownerColumn])];
  const indexed = index.columns.map((c) => `${q(c)} IS NOT NULL`).join(' AND ');
  const order = keys.map((k) => `${q(k)} ASC`).join(', ');
  let cursor = state.phase === 'backfilling' ? state.cursor : undefined;
  const resumed = cursor !== undefined;
  let chunks = 0;
  let rows = 0;
  let repairs = 0;
  const conflicts: IndexFinding[] = [];
  while (state.phase === 'backfilling') {
    const after = cursor === undefined ? { sql: '', parameters: [] as unknown[] } : afterKey(keys, cursor, q);
    const chunk = await host.query(`SELECT ${columns.map(q).join(', ')} FROM ${q(index.table)} WHERE ${indexed}${after.sql} ORDER BY ${order} LIMIT ${chunkSize}`, after.parameters);
    if (chunk.length === 0) break;
    const next = keys.map((k) => chunk[chunk.length - 1]![k]);
    const groups = new Map<string, { values: unknown[]; owner: unknown }>();
    for (const row of chunk) {
      const values = index.columns.map((c) => row[c]);
      groups.set(JSON.stringify([...values, row[index.ownerColumn]].map(String)), { values, owner: row[index.ownerColumn] });
    }
    const outcome = await host.transaction(async (query) => {
      const actions: RepairAction[] = [];
      const clashes: IndexFinding[] = [];
      for (const { values, owner } of groups.values()) {
        const action = await reconcileEntry(index, values, owner, query, host.dialect);
        if (action === 'conflict') clashes.push({ kind: 'owned-twice', lookupTable: index.lookupTable, values, owners: [owner] });
        else if (action !== 'none') actions.push(action);
      }
      await writeBuildState(query, host.dialect, { lookupTable: index.lookupTable, phase: 'backfilling', cursor: next });
      return { actions, clashes };
    });
    for (const action of outcome.actions) host.metrics?.repairs.inc({ index: index.lookupTable, action });
    repairs += outcome.actions.length;
    conflicts.push(...outcome.clashes);
    chunks++;
    rows += chunk.length;
    cursor = next;
    await onChunk?.({ lookupTable: index.lookupTable, rows: chunk.length, cursor: next });
    if (chunk.length < chunkSize) break;
  }
  // Verify: whatever the backfill raced with is repaired now; values owned twice keep it write-only.
  const check = await checkIndexes([index], host, { repair: true });
  repairs += check.repairs.filter((r) => r.action !== 'none' && r.action !== 'conflict').length;
  const twice = check.findings.filter((f) => f.kind === 'owned-twice');
  const phase = twice.length === 0 ? 'ready' : 'conflicts';
  await writeBuildState(host.query, host.dialect, { lookupTable: index.lookupTable, phase });
  host.onPhase(index.lookupTable, phase);
  return { lookupTable: index.lookupTable, phase, resumed, chunks, rows, repairs, conflicts: twice.length > 0 ? twice : conflicts };
}

/** `AND (k1 > ? OR (k1 = ? AND k2 > ?) …)`: the rows after `cursor` in primary-key order. */
function afterKey(keys: readonly string[], cursor: readonly unknown[], q: (c: string) => string): { sql: string; parameters: unknown[] } {
  const terms: string[] = [];
  const parameters: unknown[] = [];
  for (let i = 0; i < keys.length; i++) {
    const equal = keys.slice(0, i).map((k) => `${q(k)} = ?`);
    terms.push(`(${[...equal, `${q(keys[i]!)} > ?`].join(' AND ')})`);
    parameters.push(...cursor.slice(0, i + 1));
  }
  return { sql: ` AND (${terms.join(' OR ')})`, parameters };
}

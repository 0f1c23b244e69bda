import type { SqlDialect } from '../../parameterize/index.js';
import { REFS_COLUMN, type GlobalIndex } from '../../rules/index.js';
import type { IndexMetrics } from '../index-metrics.js';
import { quoted } from '../statement-text.js';
import { indexFindings, type ColumnFold, type IndexFinding } from './index-findings.js';
import { reconcileEntry, type RepairAction, type TransactionQuery } from './reconcile-entry.js';

/** Options of `ShardedDataSource.checkIndexes()`. */
export interface CheckIndexesOptions {
  /**
   * Fix what can be fixed: dangling entries are deleted, missing ones written, miscounted ones
   * recounted, each after reading its rows again under locks in a transaction of its own. A value
   * owned twice is reported and never repaired.
   * @default false (report only)
   */
  readonly repair?: boolean;
  /** Check only the indexes of these owner tables (or these lookup tables). @default every global index */
  readonly tables?: readonly string[];
}

/** One repair `checkIndexes({ repair: true })` made (or found unnecessary by the time it ran). */
export interface IndexRepair {
  readonly finding: IndexFinding;
  readonly action: RepairAction;
}

/** What `checkIndexes()` found, per index and in all. */
export interface IndexCheckReport {
  readonly indexes: readonly { readonly lookupTable: string; readonly table: string; readonly unique: boolean; readonly rows: number; readonly entries: number; readonly findings: number }[];
  /** Every finding, in index order. */
  readonly findings: readonly IndexFinding[];
  /** With `repair`: what was done for each finding but `owned-twice` (which is never repaired). */
  readonly repairs: readonly IndexRepair[];
}

/** What checking needs from the data source. */
export interface CheckHost {
  readonly dialect: SqlDialect;
  /** One logical statement outside a transaction (scattered where it must be). */
  query(sql: string, parameters: readonly unknown[]): Promise<Record<string, unknown>[]>;
  /** `work` in a transaction of its own (XA across servers). */
  transaction<T>(work: (query: TransactionQuery) => Promise<T>): Promise<T>;
  readonly metrics?: IndexMetrics | undefined;
  /** How a value column of an index compares text (see `foldOf`); undefined: as written. */
  readonly foldOf?: (index: GlobalIndex, column: string) => ColumnFold;
}

/**
 * Reads each index's owner rows and lookup rows (whole tables, scattered: a check is an
 * operation's job, not a request's), compares them (`indexFindings`) and, with `repair`,
 * reconciles every finding but a value owned twice.
 */
export async function checkIndexes(indexes: readonly GlobalIndex[], host: CheckHost, options: CheckIndexesOptions = {}): Promise<IndexCheckReport> {
  const wanted = options.tables?.map((t) => t.toLowerCase());
  const chosen = wanted ? indexes.filter((g) => wanted.includes(g.table.toLowerCase()) || wanted.includes(g.lookupTable.toLowerCase())) : indexes;
  const q = (c: string) => quoted(c, host.dialect);
  const report: { indexes: IndexCheckReport['indexes'][number][]; findings: IndexFinding[]; repairs: IndexRepair[] } = { indexes: [], findings: [], repairs: [] };
  for (const index of chosen) {
    const indexed = index.columns.map((c) => `${q(c)} IS NOT NULL`).join(' AND ');
    const owners = (await host.query(`SELECT ${[...index.columns, index.ownerColumn].map(q).join(', ')} FROM ${q(index.table)} WHERE ${indexed}`, [])).map((r) => ({
      values: index.columns.map((c) => r[c]),
      owner: r[index.ownerColumn],
    }));
    const entryColumns = [...index.columns, index.ownerColumn, ...(index.unique ? [] : [REFS_COLUMN])];
    const entries = (await host.query(`SELECT ${entryColumns.map(q).join(', ')} FROM ${q(index.lookupTable)}`, [])).map((r) => ({
      values: index.columns.map((c) => r[c]),
      owner: r[index.ownerColumn],
      ...(index.unique ? {} : { refs: Number(r[REFS_COLUMN]) }),
    }));
    const findings = indexFindings(index, owners, entries, index.columns.map((c) => host.foldOf?.(index, c)));
    report.indexes.push({ lookupTable: index.lookupTable, table: index.table, unique: index.unique, rows: owners.length, entries: entries.length, findings: findings.length });
    report.findings.push(...findings);
    for (const f of findings) host.metrics?.findings.inc({ index: index.lookupTable, kind: f.kind });
    if (!options.repair) continue;
    // Dangling entries first: a unique value's wrong entry goes before its owner's is written.
    const order = { dangling: 0, miscounted: 1, missing: 2, 'owned-twice': 3 } as const satisfies Record<IndexFinding['kind'], number>;
    for (const finding of [...findings].sort((a, b) => order[a.kind] - order[b.kind])) {
      if (finding.kind === 'owned-twice') continue;
      const action = await host.transaction((query) => reconcileEntry(index, finding.values, finding.owner, query, host.dialect));
      report.repairs.push({ finding, action });
      if (action !== 'none' && action !== 'conflict') host.metrics?.repairs.inc({ index: index.lookupTable, action });
    }
  }
  return report;
}

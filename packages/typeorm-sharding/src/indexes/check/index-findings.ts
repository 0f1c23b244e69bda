import type { GlobalIndex } from '../../rules/index.js';

/** What is wrong with one entry of a global index (a lookup row) against its owner rows. */
export type IndexFinding =
  /** A lookup row whose owner key holds no row with its values: it routes reads to nowhere. */
  | { readonly kind: 'dangling'; readonly lookupTable: string; readonly values: readonly unknown[]; readonly owner: unknown }
  /** Owner rows (`rows` of them, on the shard of `owner`) whose values have no lookup row for that owner: reads by the value miss them, a unique index lets their duplicates in. */
  | { readonly kind: 'missing'; readonly lookupTable: string; readonly values: readonly unknown[]; readonly owner: unknown; readonly rows: number }
  /** A lookup index's row that counts `refs` owner rows where there are `rows` (a later delete would drop it too early, or never). */
  | { readonly kind: 'miscounted'; readonly lookupTable: string; readonly values: readonly unknown[]; readonly owner: unknown; readonly refs: number; readonly rows: number }
  /** A value of a unique index held by rows of several owner keys (or several rows): which one keeps it is the user's decision, never repaired. */
  | { readonly kind: 'owned-twice'; readonly lookupTable: string; readonly values: readonly unknown[]; readonly owners: readonly unknown[] };

/** An owner row's indexed values and shard key (rows with NULL in a value column are not indexed). */
export interface OwnerRow {
  readonly values: readonly unknown[];
  readonly owner: unknown;
}

/** A lookup row: its values, owner key and (lookup index) counter. */
export interface EntryRow {
  readonly values: readonly unknown[];
  readonly owner: unknown;
  readonly refs?: number;
}

/** How one value column compares (a collation's folding); undefined: as written. */
export type ColumnFold = ((text: string) => string) | undefined;

/** Values compared as the lookup table compares them: text of each column (a bigint read as text or number is one value), folded where its collation folds. */
function keyOfWith(folds: readonly ColumnFold[]): (values: readonly unknown[]) => string {
  return (values) => JSON.stringify(values.map((v, i) => {
    const text = v instanceof Date ? v.toISOString() : String(v);
    const fold = folds[i];
    return fold && typeof v === 'string' ? fold(text) : text;
  }));
}

/**
 * Compares an index's entries with its owner rows (pure: both are read beforehand). A value of
 * a unique index held by rows of two owners is reported once as `owned-twice` and nothing else
 * is reported for it: a repair of its entry would pick a winner. `folds`: per value column, how
 * its collation compares text (MySQL `_ci`: `'Bob'` and `'bob'` are one value, as in the index).
 */
export function indexFindings(index: GlobalIndex, owners: readonly OwnerRow[], entries: readonly EntryRow[], folds: readonly ColumnFold[] = []): IndexFinding[] {
  const lookupTable = index.lookupTable;
  const keyOf = keyOfWith(folds);
  // (values, owner) → owner rows
  const held = new Map<string, { values: readonly unknown[]; owner: unknown; rows: number }>();
  // values → its owner keys and rows
  const ownersOf = new Map<string, { values: readonly unknown[]; owners: Map<string, unknown>; rows: number }>();
  for (const row of owners) {
    if (row.values.some((v) => v === null || v === undefined)) continue;
    const pair = keyOf([...row.values, row.owner]);
    const group = held.get(pair);
    if (group) group.rows++;
    else held.set(pair, { values: row.values, owner: row.owner, rows: 1 });
    const value = keyOf(row.values);
    const holders = ownersOf.get(value) ?? { values: row.values, owners: new Map<string, unknown>(), rows: 0 };
    holders.owners.set(keyOf([row.owner]), row.owner);
    holders.rows++;
    ownersOf.set(value, holders);
  }
  const findings: IndexFinding[] = [];
  const twice = new Set<string>();
  if (index.unique) {
    for (const [value, holders] of ownersOf) {
      if (holders.rows < 2) continue;
      twice.add(value);
      findings.push({ kind: 'owned-twice', lookupTable, values: holders.values, owners: [...holders.owners.values()] });
    }
  }
  const seen = new Set<string>();
  for (const entry of entries) {
    const pair = keyOf([...entry.values, entry.owner]);
    seen.add(pair);
    if (twice.has(keyOf(entry.values))) continue;
    const group = held.get(pair);
    if (!group) findings.push({ kind: 'dangling', lookupTable, values: entry.values, owner: entry.owner });
    else if (!index.unique && entry.refs !== group.rows) findings.push({ kind: 'miscounted', lookupTable, values: entry.values, owner: entry.owner, refs: entry.refs ?? 0, rows: group.rows });
  }
  for (const [pair, group] of held) {
    if (seen.has(pair) || twice.has(keyOf(group.values))) continue;
    findings.push({ kind: 'missing', lookupTable, values: group.values, owner: group.owner, rows: group.rows });
  }
  return findings;
}

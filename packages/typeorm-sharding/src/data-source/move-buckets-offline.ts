import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import type { DataSource } from 'typeorm';
import type { HashShardingAlgorithm } from '../algorithms/index.js';
import { ShardingConfigError } from '../errors/index.js';
import { ownerOfBucket, reassignBuckets } from '../topology/topology-document.js';
import { checkFenceRanges, type FenceRange } from '../topology/fence-sql.js';
import { TopologyDocumentError } from '../topology/topology-errors.js';
import type { ShardedDataSource } from './sharded-data-source.js';

/** What {@link moveBucketsOffline} moves. */
export interface OfflineMoveOptions {
  /** The bucket ranges to move (both ends inclusive); all owned by one source shard now. */
  readonly ranges: readonly FenceRange[];
  /** The shard of the current topology that takes them (its tables must exist). */
  readonly to: string;
}

/** What was moved, per physical table. */
export interface OfflineMoveReport {
  readonly from: string;
  readonly to: string;
  /** The topology version published. */
  readonly version: number;
  readonly rows: Readonly<Record<string, number>>;
}

/** The better-sqlite3 handle calls used here. */
interface Statement {
  all(...parameters: unknown[]): Record<string, unknown>[];
  run(...parameters: unknown[]): unknown;
  safeIntegers(on: boolean): Statement;
}
interface SqliteHandle {
  prepare(sql: string): Statement;
  exec(sql: string): void;
  readonly inTransaction: boolean;
  readonly name: string;
}

/** Where the source's and the target's tables are reached. */
interface MoveConnections {
  readonly source: SqliteHandle;
  readonly target: SqliteHandle;
  readonly sourcePrefix: string;
  readonly targetPrefix: string;
  /** One connection reaches both files (one has the other attached). */
  readonly shared: boolean;
}

/**
 * The data source attaches other shard files to the default shard's connection (for atomic
 * commits across shards); a lock taken there covers the attached files too. When one of the two
 * connections has the other file attached, that connection does the whole move.
 */
function connectionsOf(source: SqliteHandle, target: SqliteHandle): MoveConnections {
  const attached = (on: SqliteHandle, file: string) =>
    (on.prepare('PRAGMA database_list').all() as { name: string; file: string }[]).find((d) => d.name !== 'main' && d.file !== '' && resolve(d.file) === resolve(file))?.name;
  const targetOnSource = attached(source, target.name);
  if (targetOnSource !== undefined) return { source, target: source, sourcePrefix: '', targetPrefix: `${quote(targetOnSource)}.`, shared: true };
  const sourceOnTarget = attached(target, source.name);
  if (sourceOnTarget !== undefined) return { source: target, target, sourcePrefix: `${quote(sourceOnTarget)}.`, targetPrefix: '', shared: true };
  return { source, target, sourcePrefix: '', targetPrefix: '', shared: false };
}

/**
 * The SQLite path of resharding (README, "Online resharding"): moves `ranges` from the shard
 * owning them to `to`, with the data source (and every other writer of those files) quiet — SQLite
 * has no fence, so other processes must not write until they have adopted the new version.
 *
 * 1. `BEGIN EXCLUSIVE` on the source and the target file;
 * 2. for every table the store governs, the rows whose bucket (computed in Node by the entity's
 *    algorithm) is moving are copied to the target (copies of an interrupted earlier run are
 *    replaced first);
 * 3. the target's copies are checked against the source: same count and the same checksum;
 * 4. the target commits, the new version is published (and adopted), the moved rows are deleted
 *    from the source, the source commits.
 *
 * A failure before the publication rolls both back (the topology is unchanged); after it, the
 * source keeps stale copies that nothing routes to, removed by running the same move again.
 */
export async function moveBucketsOffline(ds: ShardedDataSource, options: OfflineMoveOptions): Promise<OfflineMoveReport> {
  if (ds.options.type !== 'better-sqlite3') throw new ShardingConfigError('moveBucketsOffline is for better-sqlite3 shards; MySQL/MariaDB shards move online (the mover).');
  const view = ds.topology;
  const document = view.document;
  checkFenceRanges(options.ranges, document.bucketCount);
  if (options.ranges.length === 0) throw new TopologyDocumentError('moveBucketsOffline needs at least one bucket range');
  const owner = ownerOfBucket(document);
  const moving = new Set<number>();
  for (const r of options.ranges) for (let b = r.from; b <= r.to; b++) moving.add(b);
  const sources = new Set([...moving].map(owner));
  if (sources.size !== 1) throw new TopologyDocumentError(`The buckets to move belong to several shards (${[...sources].join(', ')}); move one source shard's buckets at a time`);
  const from = [...sources][0]!;
  if (from === options.to) throw new TopologyDocumentError(`The buckets already belong to shard "${from}"`);
  const next = reassignBuckets(document, options.ranges, options.to);

  const files = connectionsOf(handleOf(ds.getShardDataSource(from)), handleOf(ds.getShardDataSource(options.to)));
  const { source, target } = files;
  const src = (table: string) => `${files.sourcePrefix}${quote(table)}`;
  const tgt = (table: string) => `${files.targetPrefix}${quote(table)}`;
  const tables = governedTables(ds);
  const rows: Record<string, number> = {};
  source.exec('BEGIN EXCLUSIVE');
  try {
    if (!files.shared) target.exec('BEGIN EXCLUSIVE');
    try {
      for (const t of tables) {
        const inMoving = (row: Record<string, unknown>) => moving.has(t.bucketOf(row[t.column]));
        const copied = source.prepare(`SELECT * FROM ${src(t.table)}`).safeIntegers(true).all().filter(inMoving);
        const stale = target.prepare(`SELECT DISTINCT ${quote(t.column)} AS k FROM ${tgt(t.table)}`).safeIntegers(true).all().filter((r) => moving.has(t.bucketOf(r['k'])));
        const drop = target.prepare(`DELETE FROM ${tgt(t.table)} WHERE ${quote(t.column)} = ?`);
        for (const r of stale) drop.run(r['k']);
        if (copied.length > 0) {
          const columns = Object.keys(copied[0]!);
          const insert = target.prepare(`INSERT INTO ${tgt(t.table)} (${columns.map(quote).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
          for (const row of copied) insert.run(...columns.map((c) => row[c]));
        }
        const landed = target.prepare(`SELECT * FROM ${tgt(t.table)}`).safeIntegers(true).all().filter(inMoving);
        if (landed.length !== copied.length || checksum(landed) !== checksum(copied)) {
          throw new TopologyDocumentError(`Offline move of ${t.table}: the copy on ${options.to} does not match ${from} (${landed.length} rows against ${copied.length}); nothing was moved`);
        }
        rows[t.table] = copied.length;
      }
      target.exec('COMMIT');
      // One connection holds both files (the default shard attaches the others): lock again at once.
      if (files.shared) source.exec('BEGIN EXCLUSIVE');
    } catch (error) {
      if (target.inTransaction) target.exec('ROLLBACK');
      throw error;
    }
    await ds.publishTopology(next, `offline move of ${describe(options.ranges)} from ${from} to ${options.to}`);
    for (const t of tables) {
      const keys = source.prepare(`SELECT DISTINCT ${quote(t.column)} AS k FROM ${src(t.table)}`).safeIntegers(true).all().filter((r) => moving.has(t.bucketOf(r['k'])));
      const drop = source.prepare(`DELETE FROM ${src(t.table)} WHERE ${quote(t.column)} = ?`);
      for (const r of keys) drop.run(r['k']);
    }
    source.exec('COMMIT');
  } catch (error) {
    if (source.inTransaction) source.exec('ROLLBACK');
    throw error;
  }
  return { from, to: options.to, version: next.version, rows };
}

interface GovernedTable {
  readonly table: string;
  readonly column: string;
  bucketOf(key: unknown): number;
}

/** Every physical table whose rows the store places (sharded entities, their junctions and lookup tables). */
function governedTables(ds: ShardedDataSource): GovernedTable[] {
  const tables: GovernedTable[] = [];
  for (const rule of ds.shardingRules.all()) {
    const key = rule.shardKey;
    if (rule.distribution !== 'sharded' || !key) continue;
    const algorithm = key.algorithm as Partial<HashShardingAlgorithm>;
    if (typeof algorithm.bucketOf !== 'function') throw new ShardingConfigError(`[BUG] ${rule.tableName} is governed by the topology store but its algorithm has no buckets`);
    const bucketOf = (value: unknown) => algorithm.bucketOf!(typeof value === 'bigint' && value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value);
    const names = key.layout ? Array.from({ length: key.layout.count }, (_, i) => key.layout!.physicalName(rule.tableName, i)) : [rule.tableName];
    for (const table of names) tables.push({ table, column: key.columnName, bucketOf });
  }
  return tables;
}

function handleOf(shard: DataSource): SqliteHandle {
  const handle = (shard.driver as unknown as { databaseConnection?: SqliteHandle }).databaseConnection;
  if (!handle) throw new ShardingConfigError('[BUG] a better-sqlite3 shard without its database connection');
  return handle;
}

/** Order-independent digest of rows (bigints and buffers written exactly). */
function checksum(rows: readonly Record<string, unknown>[]): string {
  const lines = rows
    .map((row) => JSON.stringify(Object.keys(row).sort().map((k) => [k, encode(row[k])])))
    .sort();
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

function encode(value: unknown): unknown {
  if (typeof value === 'bigint') return `n:${value}`;
  if (Buffer.isBuffer(value)) return `b:${value.toString('hex')}`;
  return value;
}

function quote(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function describe(ranges: readonly FenceRange[]): string {
  return ranges.map((r) => (r.from === r.to ? `${r.from}` : `${r.from}-${r.to}`)).join(', ');
}

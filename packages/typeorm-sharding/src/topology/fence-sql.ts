import { bucketSql, crc32, MAX_BUCKET_COUNT, type KeyKind } from '../algorithms/index.js';
import { TopologyDocumentError } from './topology-errors.js';

/** Name of the fence table in a shard's database. */
export const FENCE_TABLE = 'tsh_fence';

/** The session variable a mover's own appliers set to 1 so that the fence lets their writes through. */
export const FENCE_BYPASS_VARIABLE = '@tsh_fence_bypass';

/** Prefix of the message a fenced write is refused with: `TSH_FENCED version=<v> bucket=<b>`. */
export const FENCE_MESSAGE_PREFIX = 'TSH_FENCED';

/** One table the fence guards: its name in the shard's database and its shard-key column. */
export interface FencedTable {
  /** Physical table name (as it is in the shard's database). */
  readonly table: string;
  /** The shard-key column whose bucket decides whether a row is fenced. */
  readonly keyColumn: string;
  /** How the key is hashed (see `bucketSql`). */
  readonly keyKind: KeyKind;
}

/** A run of buckets, both ends inclusive. */
export interface FenceRange {
  readonly from: number;
  readonly to: number;
}

/** The three trigger events, each with the row images whose bucket it checks. */
export const FENCE_EVENTS = {
  i: { event: 'INSERT', rows: ['NEW'] },
  u: { event: 'UPDATE', rows: ['OLD', 'NEW'] },
  d: { event: 'DELETE', rows: ['OLD'] },
} as const satisfies Record<string, { event: string; rows: readonly ('NEW' | 'OLD')[] }>;

export type FenceEvent = keyof typeof FENCE_EVENTS;

const MAX_IDENTIFIER = 64;

/** Backtick-quotes a MySQL identifier. */
export function quoteIdentifier(name: string): string {
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_IDENTIFIER || name.includes('\0')) {
    throw new TopologyDocumentError(`Not a usable MySQL identifier: ${JSON.stringify(name)} (1 to 64 characters, no NUL)`);
  }
  return `\`${name.replace(/`/g, '``')}\``;
}

/**
 * The trigger's name: `tsh_fence_<table>_<i|u|d>`; when that exceeds MySQL's 64 characters the
 * table part is cut and followed by the CRC-32 of the whole table name, so two long names that
 * share a prefix still get distinct triggers.
 */
export function fenceTriggerName(table: string, event: FenceEvent): string {
  const plain = `tsh_fence_${table}_${event}`;
  if (plain.length <= MAX_IDENTIFIER) return plain;
  const hash = crc32(Buffer.from(table, 'utf8')).toString(16).padStart(8, '0');
  // 10 ('tsh_fence_') + 43 + 1 + 8 + 2 ('_i') = 64
  return `tsh_fence_${[...table].slice(0, 43).join('')}_${hash}_${event}`.slice(0, MAX_IDENTIFIER);
}

/** `CREATE TABLE IF NOT EXISTS` of the fence table in `database`. */
export function createFenceTableSql(database: string): string {
  return (
    `CREATE TABLE IF NOT EXISTS ${quoteIdentifier(database)}.${FENCE_TABLE} (` +
    'bucket_from INT NOT NULL, bucket_to INT NOT NULL, version BIGINT NOT NULL, PRIMARY KEY (bucket_from)' +
    ') ENGINE=InnoDB'
  );
}

/**
 * The body of one fence trigger (from BEGIN to END). For each row image it computes the bucket
 * in SQL and looks it up in the fence table with a *locking* read: a plain read would use the
 * transaction's snapshot, so a transaction opened before the fence was published would not see
 * it (REPEATABLE READ) and its write would land on the old shard after the cutover. The shared
 * lock also makes publishing the fence wait for every transaction that wrote a guarded table
 * before it, so once the fence's INSERT commits no earlier write is still in flight.
 */
export function fenceTriggerBody(database: string, table: FencedTable, event: FenceEvent, bucketCount: number): string {
  checkBucketCount(bucketCount);
  const fence = `${quoteIdentifier(database)}.${FENCE_TABLE}`;
  const checks = FENCE_EVENTS[event].rows.map((image) => {
    const bucket = bucketSql(`${image}.${quoteIdentifier(table.keyColumn)}`, table.keyKind, bucketCount);
    return (
      `SET tsh_b = ${bucket}; ` +
      `SELECT MAX(f.version) INTO tsh_v FROM ${fence} f WHERE f.bucket_from <= tsh_b AND f.bucket_to >= tsh_b LOCK IN SHARE MODE; ` +
      `IF tsh_v IS NOT NULL THEN ` +
      `SET tsh_msg = CONCAT('${FENCE_MESSAGE_PREFIX} version=', tsh_v, ' bucket=', tsh_b); ` +
      `SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = tsh_msg; ` +
      `END IF;`
    );
  });
  return (
    'BEGIN DECLARE tsh_b INT; DECLARE tsh_v BIGINT; DECLARE tsh_msg VARCHAR(128); ' +
    `IF COALESCE(${FENCE_BYPASS_VARIABLE}, 0) <> 1 THEN ${checks.join(' ')} END IF; END`
  );
}

/** `CREATE TRIGGER` of one fence trigger. */
export function createFenceTriggerSql(database: string, table: FencedTable, event: FenceEvent, bucketCount: number): string {
  const db = quoteIdentifier(database);
  const name = `${db}.${quoteIdentifier(fenceTriggerName(table.table, event))}`;
  return (
    `CREATE TRIGGER ${name} BEFORE ${FENCE_EVENTS[event].event} ON ${db}.${quoteIdentifier(table.table)} FOR EACH ROW ` +
    fenceTriggerBody(database, table, event, bucketCount)
  );
}

/** `DROP TRIGGER IF EXISTS` of one fence trigger. */
export function dropFenceTriggerSql(database: string, table: string, event: FenceEvent): string {
  return `DROP TRIGGER IF EXISTS ${quoteIdentifier(database)}.${quoteIdentifier(fenceTriggerName(table, event))}`;
}

/** Checks fence ranges: integer bounds inside `[0, bucketCount)`, `from <= to`, no two overlapping. */
export function checkFenceRanges(ranges: readonly FenceRange[], bucketCount?: number): void {
  if (!Array.isArray(ranges)) throw new TopologyDocumentError('Fence ranges must be an array of { from, to }');
  const sorted = [...ranges].sort((a, b) => a.from - b.from);
  sorted.forEach((range, i) => {
    const text = `{from: ${String(range.from)}, to: ${String(range.to)}}`;
    if (!Number.isSafeInteger(range.from) || !Number.isSafeInteger(range.to) || range.from < 0 || range.from > range.to) {
      throw new TopologyDocumentError(`Fence range ${text}: bounds must be integers with 0 <= from <= to`);
    }
    if (bucketCount !== undefined && range.to >= bucketCount) {
      throw new TopologyDocumentError(`Fence range ${text}: out of range, buckets are 0…${bucketCount - 1}`);
    }
    const previous = sorted[i - 1];
    if (previous !== undefined && previous.to >= range.from) {
      throw new TopologyDocumentError(`Fence ranges overlap: {from: ${previous.from}, to: ${previous.to}} and ${text}`);
    }
  });
}

/** Checks a topology version: a positive safe integer. */
export function checkVersion(version: number): void {
  if (!Number.isSafeInteger(version) || version < 1) {
    throw new TopologyDocumentError(`A topology version must be a positive integer, got ${String(version)}`);
  }
}

function checkBucketCount(bucketCount: number): void {
  if (!Number.isInteger(bucketCount) || bucketCount < 1 || bucketCount > MAX_BUCKET_COUNT) {
    throw new TopologyDocumentError(`The bucket count must be an integer from 1 to ${MAX_BUCKET_COUNT}, got ${String(bucketCount)}`);
  }
}

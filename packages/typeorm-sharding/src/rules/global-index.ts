import type { EntityMetadata } from 'typeorm';
import { createAlgorithm, type KeyKind, type ShardingAlgorithm, type ShardingAlgorithmOption } from '../algorithms/index.js';
import { placementOf } from './resolve-rules.js';
import type { TableRule, UniqueKey } from './table-rule.js';

/**
 * A global index of a sharded table, kept in a lookup table sharded by its first value column
 * with the owner's algorithm; the engine writes the lookup rows in the owner's transaction
 * (`src/indexes/`).
 *
 * - unique (a unique key without the shard key; DESIGN.md §9, Vitess's
 *   `consistent_lookup_unique`): one row per value, `(value columns) → owner's shard key`, its
 *   primary key the value columns. Equal values meet in one lookup row, so that shard's primary
 *   key refuses the second.
 * - not unique (`@Sharded({ lookups })`, Vitess's `consistent_lookup`): one row per value and
 *   owner shard key, `(value columns, shard key) → refs`, the number of owner rows with that
 *   value and that shard key; its primary key all but `refs`. Written with an increment, so a
 *   delete knows whether other rows still need the entry.
 */
export interface GlobalIndex {
  /** True for a unique key; false for a lookup index (many rows may share a value). */
  readonly unique: boolean;
  /** The owner table (`users`). */
  readonly table: string;
  /** The owner's entity. */
  readonly owner: EntityMetadata;
  /** The user's key, for messages (`unique key`, `primary key`, `one-to-one join column of "profile"`). */
  readonly label: string;
  /** The index's name on one database (`UQ_…`, `PRIMARY`): what a duplicate's message names. */
  readonly indexName: string;
  /** The value columns (database names), in the key's order. */
  readonly columns: readonly string[];
  /** The owner's shard-key column, also the lookup table's column that holds it. */
  readonly ownerColumn: string;
  /** `<table>__gidx_<columns>` (unique), `<table>__glookup_<columns>` (not unique). */
  readonly lookupTable: string;
}

/** The column of a non-unique lookup table that counts the owner rows of its entry. */
export const REFS_COLUMN = 'gidx_refs';

/** Name of the lookup table of a key: `users__gidx_email`, `orders__gidx_id`; `orders__glookup_buyerId` for a lookup index. */
export function lookupTableName(table: string, columns: readonly string[], unique = true): string {
  return `${table}__${unique ? 'gidx' : 'glookup'}_${columns.join('_')}`;
}

/** The global index of one unique key of a sharded rule. */
export function globalIndexOf(rule: TableRule, key: UniqueKey): GlobalIndex {
  return {
    unique: true,
    table: rule.tableName,
    owner: rule.metadata,
    label: key.label,
    indexName: key.name ?? (key.label === 'primary key' ? 'PRIMARY' : lookupTableName(rule.tableName, key.columns)),
    columns: key.columns,
    ownerColumn: rule.shardKey!.columnName,
    lookupTable: lookupTableName(rule.tableName, key.columns),
  };
}

/** The lookup index (`@Sharded({ lookups })`) on `columns` (database names) of a sharded rule. */
export function lookupIndexOf(rule: TableRule, columns: readonly string[]): GlobalIndex {
  return {
    unique: false,
    table: rule.tableName,
    owner: rule.metadata,
    label: 'lookup index',
    indexName: lookupTableName(rule.tableName, columns, false),
    columns,
    ownerColumn: rule.shardKey!.columnName,
    lookupTable: lookupTableName(rule.tableName, columns, false),
  };
}

/** What the lookup rule needs from the owner. */
export interface LookupPlacement {
  /** The owner's `@Sharded({ algorithm })` option. */
  readonly option: ShardingAlgorithmOption;
  /** Key kind of the first value column. */
  readonly kind: KeyKind;
  /**
   * MySQL compares text by its collation: `'A@x'` equals `'a@x '` in a `_ci` column. Equal
   * values must meet on one lookup shard, so such text is routed by a folded form (see
   * `foldText`); undefined: routed as written (SQLite's BINARY, `_bin` collations).
   */
  readonly fold?: (text: string) => string;
}

/**
 * The rule of a lookup table: sharded by its first value column, through the owner's algorithm
 * and bucket map (so that moving buckets moves the lookup rows with them).
 */
export function lookupRuleOf(index: GlobalIndex, metadata: EntityMetadata, shardNames: readonly string[], placement: LookupPlacement): TableRule {
  const column = index.columns[0]!;
  const property = metadata.columns.find((c) => c.databaseName === column)!.propertyName;
  const base = createAlgorithm(placement.option, shardNames, placement.kind);
  const fold = placement.fold;
  const algorithm: ShardingAlgorithm = fold
    ? { name: `${base.name} of folded text`, shardIndexOf: (key) => base.shardIndexOf(typeof key === 'string' ? fold(key) : key) }
    : base;
  return {
    tableName: index.lookupTable,
    distribution: 'sharded',
    metadata,
    uniqueKeys: [{ label: 'primary key', columns: index.unique ? index.columns : [...index.columns, index.ownerColumn], name: 'PRIMARY' }],
    shardKey: { propertyName: property, columnName: column, kind: placement.kind, algorithm, placement: `${placementOf(placement.option, placement.kind)}${fold ? '/folded' : ''}` },
  };
}

/**
 * A form equal for every two texts a case- and accent-insensitive MySQL collation with PAD
 * SPACE compares equal: accents dropped, lower case, trailing spaces cut. Folding more than the
 * collation only puts different values on one lookup shard, which costs nothing.
 */
export function foldText(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().replace(/ +$/, '');
}

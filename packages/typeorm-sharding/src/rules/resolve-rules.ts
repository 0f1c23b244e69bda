import type { EntityMetadata } from 'typeorm';
import { createAlgorithm, createTableLayout, DEFAULT_BUCKET_COUNT, type BucketRange, type KeyKind, type ShardingAlgorithmOption, type TableLayout, type TableLayoutOption } from '../algorithms/index.js';
import { getShardedOptions, getShardKeyProperties, isBroadcast, type ShardedOptions } from '../decorators/index.js';
import { ShardingConfigError } from '../errors/index.js';
import { checkForeignKeys } from './check-foreign-keys.js';
import { checkUniqueKeys } from './check-unique-keys.js';
import { resolveJunctionRule } from './junction-rule.js';
import { resolveColocation, type JunctionPlacement } from './resolve-colocation.js';
import { ShardingRules, type TableRule } from './table-rule.js';
import { uniqueKeysOf } from './unique-keys.js';
import { foldText, globalIndexOf, lookupRuleOf, type GlobalIndex } from './global-index.js';
import { lookupIndexesOf } from './lookup-indexes.js';

const INTEGER_TYPES = new Set(['int', 'integer', 'bigint', 'smallint', 'tinyint', 'mediumint', 'int2', 'int4', 'int8']);
const STRING_TYPES = new Set(['varchar', 'char', 'nvarchar', 'nchar', 'character varying', 'character', 'text', 'uuid', 'string', 'varchar2']);

/**
 * Reads `@Sharded`, `@ShardKey` and `@Broadcast` off every entity of the data source and
 * checks them against TypeORM's metadata: junction tables follow their sharded side,
 * co-location is validated, and unique keys and foreign keys must be enforceable per shard.
 * Every mistake is reported with the entity's name, before any connection is used for a query.
 */
export function resolveShardingRules(
  metadatas: readonly EntityMetadata[],
  shardNames: readonly string[],
  normalizeType: (metadata: EntityMetadata, propertyName: string) => string,
  /** `sharding.tables`: table layouts by table name, in place of the decorators'. */
  tableLayouts: Readonly<Record<string, TableLayoutOption>> = {},
  /** With a topology store: the bucket map of its current version, which places every `hash` entity. */
  governed?: GovernedPlacement,
): ShardingRules {
  const layouts = new Map(Object.entries(tableLayouts).map(([name, option]) => [name.toLowerCase(), option]));
  for (const name of Object.keys(tableLayouts)) {
    const metadata = metadatas.find((m) => m.tableName.toLowerCase() === name.toLowerCase());
    const sharded = metadata && typeof metadata.target === 'function' ? getShardedOptions(metadata.target) : undefined;
    if (!sharded) throw new ShardingConfigError(`sharding.tables names "${name}", which is the table of no @Sharded() entity of this data source; a layout spreads a sharded table over several tables per shard.`);
  }
  const entityRules: TableRule[] = [];
  const options = new Map<TableRule, ShardedOptions>();
  const byMetadata = new Map<EntityMetadata, TableRule>();
  for (const metadata of metadatas) {
    if (metadata.tableType === 'junction') continue;
    refuseShardedTree(metadata);
    const rule = resolveEntityRule(metadata, shardNames, normalizeType, layouts.get(metadata.tableName.toLowerCase()), governed);
    entityRules.push(rule);
    byMetadata.set(metadata, rule);
    const sharded = typeof metadata.target === 'function' ? getShardedOptions(metadata.target) : undefined;
    if (sharded) options.set(rule, sharded);
  }
  const junctionRules: TableRule[] = [];
  const placements: JunctionPlacement[] = [];
  for (const metadata of metadatas) {
    if (metadata.tableType !== 'junction') continue;
    const { rule, placement } = resolveJunctionRule(metadata, (m) => byMetadata.get(m));
    junctionRules.push(rule);
    if (placement) placements.push(placement);
  }
  const colocation = resolveColocation(entityRules, (rule) => options.get(rule), placements);
  checkPhysicalNames([...entityRules, ...junctionRules]);
  const kindOf = (rule: TableRule) => (column: string) => {
    const property = rule.metadata.columns.find((c) => c.databaseName === column)?.propertyName;
    return property === undefined ? undefined : keyKindOf(normalizeType(rule.metadata, property));
  };
  const indexes = entityRules.flatMap((rule) => {
    const unique = checkUniqueKeys(rule, options.get(rule)?.uniquePerShard, kindOf(rule)).map((key) => globalIndexOf(rule, key));
    return [...unique, ...lookupIndexesOf(rule, options.get(rule)?.lookups, kindOf(rule), unique)];
  });
  const result = new ShardingRules([...entityRules, ...junctionRules], shardNames, colocation, indexes);
  checkForeignKeys(metadatas, result);
  return result;
}

/**
 * The rules with the lookup tables of `rules.globalIndexes` added; `metadatas` holds their
 * entities (built from `lookupSchemaOf`). On MySQL, text compared by a collation that is not
 * binary is routed by its folded form (see `foldText`).
 */
export function withLookupTables(
  rules: ShardingRules,
  metadatas: readonly EntityMetadata[],
  normalizeType: (metadata: EntityMetadata, propertyName: string) => string,
  dialect: 'mysql' | 'sqlite',
  governed?: GovernedPlacement,
): ShardingRules {
  if (rules.globalIndexes.length === 0) return rules;
  const lookups = rules.globalIndexes.map((index) => {
    const metadata = metadatas.find((m) => m.tableName === index.lookupTable);
    if (!metadata) throw new ShardingConfigError(`[BUG] the lookup table "${index.lookupTable}" of ${index.owner.name} has no entity.`);
    const owner = rules.ruleOf(index.table)!;
    const column = index.owner.columns.find((c) => c.databaseName === index.columns[0])!;
    const kind = keyKindOf(normalizeType(index.owner, column.propertyName))!;
    const declared = (typeof owner.metadata.target === 'function' ? getShardedOptions(owner.metadata.target)?.algorithm : undefined) ?? 'hash';
    const option = governed ? governedOption(declared, owner.metadata.name, governed) : declared;
    const fold = foldOf(index, index.columns[0]!, normalizeType, dialect);
    return lookupRuleOf(index, metadata, rules.shardNames, { option, kind, ...(fold ? { fold } : {}) });
  });
  return rules.withLookupTables(lookups);
}

/**
 * How the database compares text of one column of a global index: folded (`foldText`) on MySQL
 * when its collation is not binary, so that values it finds equal are one value to the lookup
 * routing and to the index checker; undefined: compared as written (SQLite, `_bin`, integers).
 */
export function foldOf(
  index: GlobalIndex,
  columnName: string,
  normalizeType: (metadata: EntityMetadata, propertyName: string) => string,
  dialect: 'mysql' | 'sqlite',
): ((text: string) => string) | undefined {
  const column = index.owner.columns.find((c) => c.databaseName === columnName);
  if (!column || dialect !== 'mysql' || keyKindOf(normalizeType(index.owner, column.propertyName)) !== 'string') return undefined;
  const binary = /_bin$|^binary$/i.test(column.collation ?? '') || /^binary$/i.test(column.charset ?? '');
  return binary ? undefined : foldText;
}

/**
 * A `@Tree()` entity cannot be sharded: its rows point to parents on other shards, and
 * TypeORM's tree queries (closure table, materialized path `LIKE`, nested-set ranges) read
 * the whole tree at once. Co-locating it with itself is no fix (`colocateWith` names another
 * entity), so the one that works is named: keep the tree on the default shard.
 */
function refuseShardedTree(metadata: EntityMetadata): void {
  if (!metadata.treeType || typeof metadata.target !== 'function' || !getShardedOptions(metadata.target)) return;
  throw new ShardingConfigError(
    `Entity ${metadata.name}: a @Tree("${metadata.treeType}") entity cannot be @Sharded(): its parent and child rows would live on different shards, and TypeORM's tree queries read the whole tree at once. ` +
      'Remove @Sharded() (and @ShardKey()) from it: the tree then lives on the default shard, where every tree query runs as on one database.',
  );
}

/** A layout's physical tables must not be named as another table of the data source. */
function checkPhysicalNames(rules: readonly TableRule[]): void {
  const owner = new Map(rules.map((r) => [r.tableName.toLowerCase(), r]));
  for (const rule of rules) {
    const layout = rule.shardKey?.layout;
    if (!layout) continue;
    for (let i = 0; i < layout.count; i++) {
      const name = layout.physicalName(rule.tableName, i);
      const other = owner.get(name.toLowerCase());
      if (other) {
        throw new ShardingConfigError(`Entity ${rule.metadata.name}: its table layout names table ${i} "${name}", which is the table of ${other.metadata.name}; choose another name pattern (@Sharded({ tables: { count, name } })).`);
      }
      owner.set(name.toLowerCase(), rule);
    }
  }
}

function resolveEntityRule(
  metadata: EntityMetadata,
  shardNames: readonly string[],
  normalizeType: (metadata: EntityMetadata, propertyName: string) => string,
  configuredLayout: TableLayoutOption | undefined,
  governed: GovernedPlacement | undefined,
): TableRule {
  const target = metadata.target;
  const base = { tableName: metadata.tableName, metadata, uniqueKeys: uniqueKeysOf(metadata) };
  if (typeof target !== 'function') return { ...base, distribution: 'unsharded', shardKey: undefined };
  const sharded = getShardedOptions(target);
  const broadcast = isBroadcast(target);
  const keys = getShardKeyProperties(target);
  const name = metadata.name;

  if (sharded && broadcast) {
    throw new ShardingConfigError(`Entity ${name} is both @Sharded() and @Broadcast(); choose one.`);
  }
  if (!sharded) {
    if (keys.length > 0) {
      throw new ShardingConfigError(`Entity ${name} has @ShardKey() on "${keys.join('", "')}" but no @Sharded().`);
    }
    return { ...base, distribution: broadcast ? 'broadcast' : 'unsharded', shardKey: undefined };
  }
  if (keys.length === 0) {
    throw new ShardingConfigError(`Entity ${name} is @Sharded() but has no @ShardKey() column.`);
  }
  if (keys.length > 1) {
    throw new ShardingConfigError(`Entity ${name} has ${keys.length} shard keys ("${keys.join('", "')}"); exactly one @ShardKey() is allowed.`);
  }
  const propertyName = keys[0]!;
  const column = metadata.columns.find((c) => c.propertyName === propertyName && !c.relationMetadata)
    ?? metadata.columns.find((c) => c.propertyName === propertyName);
  if (!column) {
    throw new ShardingConfigError(`Entity ${name}: @ShardKey() property "${propertyName}" is not a column; add @Column() or @PrimaryColumn().`);
  }
  for (const generated of metadata.columns) {
    if (generated.isPrimary && generated.isGenerated && generated.generationStrategy === 'increment') {
      throw new ShardingConfigError(
        `Entity ${name}: auto-increment primary key "${generated.propertyName}" on a sharded entity would give the same id on several shards; use application-assigned or uuid keys.`,
      );
    }
  }
  const kind = keyKindOf(normalizeType(metadata, propertyName));
  if (!kind) {
    throw new ShardingConfigError(`Entity ${name}: shard key "${propertyName}" has type "${normalizeType(metadata, propertyName)}"; only integer and string columns can be shard keys.`);
  }
  const declared = sharded.algorithm ?? 'hash';
  const option = governed ? governedOption(declared, name, governed) : declared;
  const algorithm = createAlgorithm(option, shardNames, kind);
  const tables = configuredLayout ?? sharded.tables;
  const layout = tables === undefined ? undefined : createTableLayout(tables, metadata.tableName, name, algorithm);
  return {
    ...base,
    distribution: 'sharded',
    shardKey: {
      propertyName,
      columnName: column.databaseName,
      kind,
      algorithm,
      placement: placementOf(option, kind, layout),
      ...(layout ? { layout } : {}),
    },
  };
}

/** The placement a topology store gives every entity it governs. */
export interface GovernedPlacement {
  readonly bucketCount: number;
  readonly bucketMap: readonly BucketRange[];
}

/**
 * The algorithm of an entity under a topology store: `hash` with the store's bucket map. An
 * entity that places its rows some other way (`mod`, a function, its own `bucketMap`, another
 * bucket count) is refused: the store could not move its rows with their buckets, so a move
 * would leave them behind (see README, "Online resharding").
 */
function governedOption(option: ShardingAlgorithmOption, entity: string, governed: GovernedPlacement): ShardingAlgorithmOption {
  const spec = typeof option === 'string' ? { type: option } : typeof option === 'function' ? undefined : option;
  const hash = spec?.type === 'hash' ? (spec as { buckets?: number; bucketMap?: unknown }) : undefined;
  const fits = hash !== undefined && hash.bucketMap === undefined && (hash.buckets === undefined || hash.buckets === governed.bucketCount);
  if (!fits) {
    const what = typeof option === 'function' ? 'a function algorithm' : hash === undefined ? `algorithm ${JSON.stringify(option)}` : hash.bucketMap !== undefined ? 'its own bucketMap' : `${String(hash.buckets)} buckets`;
    throw new ShardingConfigError(
      `Entity ${entity}: with sharding.topology the topology store places every sharded entity (hash, ${governed.bucketCount} buckets, the store's bucket map), but ${entity} declares ${what}. ` +
        "Use @Sharded() or @Sharded({ algorithm: 'hash' }) (its rows then move with their buckets), or leave sharding.topology unset.",
    );
  }
  return { type: 'hash', buckets: governed.bucketCount, bucketMap: governed.bucketMap };
}

const functionIds = new WeakMap<Function, number>();
let functionCount = 0;

/**
 * A text that is equal for two keys exactly when the same value lands on the same shard under
 * both: the algorithm with its parameters, and the key kind (integer keys are canonicalised as
 * numbers, string keys byte for byte). A function algorithm is equal only to itself.
 */
export function placementOf(option: ShardingAlgorithmOption, kind: KeyKind, layout?: TableLayout): string {
  // Equal keys share a table only when both tables are laid out alike.
  const tables = layout ? `/tables=${layout.count}` : '';
  if (typeof option === 'function') {
    if (!functionIds.has(option)) functionIds.set(option, ++functionCount);
    return `function#${functionIds.get(option)}/${kind}${tables}`;
  }
  const spec = typeof option === 'string' ? { type: option } : option;
  if (spec.type === 'mod') return `mod/${kind}${tables}`;
  const hash = spec as { buckets?: number; bucketMap?: unknown };
  return `hash/${hash.buckets ?? DEFAULT_BUCKET_COUNT}/${hash.bucketMap === undefined ? 'default' : JSON.stringify(hash.bucketMap)}/${kind}${tables}`;
}

function keyKindOf(type: string): KeyKind | undefined {
  const t = type.toLowerCase();
  if (INTEGER_TYPES.has(t)) return 'integer';
  if (STRING_TYPES.has(t)) return 'string';
  return undefined;
}

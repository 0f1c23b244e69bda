import type { EntityMetadata } from 'typeorm';
import { createAlgorithm, type KeyKind } from '../algorithms/index.js';
import { getShardedOptions, getShardKeyProperties, isBroadcast } from '../decorators/index.js';
import { ShardingConfigError } from '../errors/index.js';
import { ShardingRules, type TableRule } from './table-rule.js';

const INTEGER_TYPES = new Set(['int', 'integer', 'bigint', 'smallint', 'tinyint', 'mediumint', 'int2', 'int4', 'int8']);
const STRING_TYPES = new Set(['varchar', 'char', 'nvarchar', 'nchar', 'character varying', 'character', 'text', 'uuid', 'string', 'varchar2']);

/**
 * Reads `@Sharded`, `@ShardKey` and `@Broadcast` off every entity of the data source and
 * checks them against TypeORM's metadata. Every mistake is reported with the entity's name,
 * before any connection is used for a query.
 */
export function resolveShardingRules(
  metadatas: readonly EntityMetadata[],
  shardNames: readonly string[],
  normalizeType: (metadata: EntityMetadata, propertyName: string) => string,
): ShardingRules {
  const rules: TableRule[] = [];
  for (const metadata of metadatas) {
    const target = metadata.target;
    if (typeof target !== 'function') {
      rules.push({ tableName: metadata.tableName, distribution: 'unsharded', metadata, shardKey: undefined });
      continue;
    }
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
      rules.push({ tableName: metadata.tableName, distribution: broadcast ? 'broadcast' : 'unsharded', metadata, shardKey: undefined });
      continue;
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
    rules.push({
      tableName: metadata.tableName,
      distribution: 'sharded',
      metadata,
      shardKey: {
        propertyName,
        columnName: column.databaseName,
        kind,
        algorithm: createAlgorithm(sharded.algorithm ?? 'hash', shardNames, kind),
      },
    });
  }
  const result = new ShardingRules(rules, shardNames);
  checkForeignKeys(metadatas, result);
  return result;
}

/**
 * A foreign key must be checkable inside one shard: from a sharded or broadcast table it may
 * point to a broadcast table, or to a sharded table through the shard keys of both (a binding
 * table). Anything else would need the referenced row on another shard.
 */
function checkForeignKeys(metadatas: readonly EntityMetadata[], rules: ShardingRules): void {
  for (const metadata of metadatas) {
    const from = rules.ruleOf(metadata.tableName);
    if (!from || from.distribution === 'unsharded') continue;
    for (const fk of metadata.foreignKeys) {
      const to = rules.ruleOf(fk.referencedEntityMetadata.tableName);
      const toDistribution = to?.distribution ?? 'unsharded';
      if (toDistribution === 'broadcast') continue;
      const binding = from.distribution === 'sharded' && toDistribution === 'sharded'
        && fk.columns.length === 1
        && fk.columns[0]!.databaseName === from.shardKey!.columnName
        && fk.referencedColumns[0]!.databaseName === to!.shardKey!.columnName;
      if (binding) continue;
      throw new ShardingConfigError(
        `Entity ${metadata.name} (${from.distribution}) has a foreign key to ${fk.referencedEntityMetadata.name} (${toDistribution}) that cannot be enforced within one shard; ` +
          `set createForeignKeyConstraints: false on the relation${from.distribution === 'sharded' && toDistribution === 'sharded' ? ', or join on the shard keys of both entities' : ''}.`,
      );
    }
  }
}

function keyKindOf(type: string): KeyKind | undefined {
  const t = type.toLowerCase();
  if (INTEGER_TYPES.has(t)) return 'integer';
  if (STRING_TYPES.has(t)) return 'string';
  return undefined;
}

import type { EntityMetadata } from 'typeorm';
import { getShardedOptions } from '../decorators/index.js';
import { ShardingConfigError } from '../errors/index.js';
import type { ShardingRules, TableRule } from './table-rule.js';

/**
 * A sharded table that every shard database holds as MySQL partitions:
 * `PARTITION BY KEY (shard key) PARTITIONS count` (`@Sharded({ partitions })`).
 *
 * The partitions are the server's own business: the server picks a row's partition from its
 * shard key and prunes `WHERE key = …` / `IN (…)` to the partitions of those values, and a
 * statement over the whole table is one statement whose partitions' ordered index scans the
 * server merges itself. So results never depend on them, only cost: a page ordered across 16
 * partitions of one table costs the server a fraction of the same page across 16 shard
 * databases (`pnpm bench`, §4b and §7). Resharding copies a table with its `SHOW CREATE TABLE`,
 * partitions included, and the server places each copied row.
 */
export interface KeyPartitioning {
  /** Entity name, for messages. */
  readonly entity: string;
  readonly tableName: string;
  /** The shard-key column the server partitions by. */
  readonly column: string;
  readonly count: number;
}

/** MySQL and MariaDB allow at most 8192 partitions per table. */
export const MAX_PARTITIONS = 8192;

/**
 * The partitioned tables of the data source, checked: only on MySQL/MariaDB, only sharded
 * tables without a table-per-shard layout, a whole count from 1 to 8192, every unique key
 * holding the shard key (MySQL requires each unique key of a partitioned table to include the
 * partitioning columns) and no foreign key from or to the table (InnoDB has none on
 * partitioned tables). Anything else is refused at `initialize()`, naming the fix: a schema
 * the server would reject half-way through `synchronize` is never started.
 */
export function resolveKeyPartitioning(
  metadatas: readonly EntityMetadata[],
  rules: ShardingRules,
  dialect: 'mysql' | 'sqlite',
  /** `sharding.partitions`: counts by table name, in place of the decorators'. */
  configured: Readonly<Record<string, number>> = {},
): readonly KeyPartitioning[] {
  const byName = new Map(Object.entries(configured).map(([name, count]) => [name.toLowerCase(), count]));
  for (const name of byName.keys()) {
    if (rules.ruleOf(name)?.distribution !== 'sharded' || rules.ruleOf(name)!.metadata.tableType === 'junction') {
      throw new ShardingConfigError(`sharding.partitions names "${name}", which is the table of no @Sharded() entity of this data source; partitions split a sharded table inside every shard database.`);
    }
  }
  const result: KeyPartitioning[] = [];
  for (const metadata of metadatas) {
    if (metadata.tableType === 'junction' || typeof metadata.target !== 'function') continue;
    const count = byName.get(metadata.tableName.toLowerCase()) ?? getShardedOptions(metadata.target)?.partitions;
    if (count === undefined) continue;
    const rule = rules.ruleOf(metadata.tableName)!;
    const where = `Entity ${metadata.name}: partitions`;
    if (!Number.isInteger(count) || count < 1 || count > MAX_PARTITIONS) throw new ShardingConfigError(`${where} must be a whole number from 1 to ${MAX_PARTITIONS}, not ${String(count)}.`);
    if (dialect !== 'mysql') throw new ShardingConfigError(`${where} need MySQL or MariaDB shards: SQLite has no partitions. Remove the partitions option (or set it for the MySQL deployment only, with sharding.partitions).`);
    if (rule.shardKey!.layout) throw new ShardingConfigError(`${where} and a table-per-shard layout (tables) do not go together: choose one way to split the table inside a shard.`);
    refuseUniqueKeysWithoutShardKey(rule, where);
    refuseForeignKeys(metadata, metadatas, where);
    result.push({ entity: metadata.name, tableName: metadata.tableName, column: rule.shardKey!.columnName, count });
  }
  return result;
}

function refuseUniqueKeysWithoutShardKey(rule: TableRule, where: string): void {
  const column = rule.shardKey!.columnName.toLowerCase();
  for (const key of rule.uniqueKeys) {
    if (key.columns.some((c) => c.toLowerCase() === column)) continue;
    throw new ShardingConfigError(
      `${where}: its ${key.label}${key.name && key.label !== 'primary key' ? ` ${key.name}` : ''} (${key.columns.join(', ')}) does not hold the shard key ${rule.shardKey!.propertyName}, and MySQL requires every unique key of a partitioned table to hold the partitioning column. Add ${rule.shardKey!.propertyName} to that key, or leave the table unpartitioned.`,
    );
  }
}

function refuseForeignKeys(metadata: EntityMetadata, metadatas: readonly EntityMetadata[], where: string): void {
  const own = metadata.foreignKeys[0];
  const referencing = metadatas.find((m) => m.foreignKeys.some((fk) => fk.referencedEntityMetadata === metadata));
  if (!own && !referencing) return;
  const relation = own
    ? `${metadata.name}.${metadata.relations.find((r) => r.foreignKeys.includes(own))?.propertyName ?? 'its relation'}`
    : `the relation of ${referencing!.name} to it`;
  throw new ShardingConfigError(
    `${where}: InnoDB has no foreign keys on partitioned tables, and ${relation} declares one. Set createForeignKeyConstraints: false on that relation (the shards never check it across shards anyway), or leave the table unpartitioned.`,
  );
}

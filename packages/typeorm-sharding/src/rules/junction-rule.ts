import type { EntityMetadata } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import type { RelationMetadata } from 'typeorm/metadata/RelationMetadata.js';
import { ShardingConfigError } from '../errors/index.js';
import type { JunctionPlacement } from './resolve-colocation.js';
import type { TableRule } from './table-rule.js';
import { uniqueKeysOf } from './unique-keys.js';

/** The rule of a junction table, and where it lives when it is sharded. */
export interface JunctionRule {
  readonly rule: TableRule;
  readonly placement: JunctionPlacement | undefined;
}

/**
 * Where the junction table of a many-to-many relation lives. Its rows pair a row of each
 * side, so it follows the sharded side: a junction of a sharded owner is sharded by its column
 * that references the owner's shard key (so each pair sits on the owner row's shard and its
 * foreign key to the owner holds there); when only the inverse side is sharded, by the column
 * that references the inverse side's key. Between two broadcast entities it is broadcast too;
 * otherwise it stays unsharded, with its sides.
 */
export function resolveJunctionRule(junction: EntityMetadata, ruleOf: (metadata: EntityMetadata) => TableRule | undefined): JunctionRule {
  const relation = owningRelationOf(junction);
  const base = { tableName: junction.tableName, metadata: junction, uniqueKeys: uniqueKeysOf(junction) };
  if (!relation) return { rule: { ...base, distribution: 'unsharded', shardKey: undefined }, placement: undefined };
  const owner = ruleOf(relation.entityMetadata);
  const inverse = ruleOf(relation.inverseEntityMetadata);
  if (owner?.distribution === 'sharded') return sharded(base, relation, owner, junction.ownerColumns, inverse, junction.inverseColumns, 'joinColumns');
  if (inverse?.distribution === 'sharded') return sharded(base, relation, inverse, junction.inverseColumns, owner, junction.ownerColumns, 'inverseJoinColumns');
  const broadcast = owner?.distribution === 'broadcast' && inverse?.distribution === 'broadcast';
  return { rule: { ...base, distribution: broadcast ? 'broadcast' : 'unsharded', shardKey: undefined }, placement: undefined };
}

function sharded(
  base: Pick<TableRule, 'tableName' | 'metadata' | 'uniqueKeys'>,
  relation: RelationMetadata,
  home: TableRule,
  homeColumns: readonly ColumnMetadata[],
  other: TableRule | undefined,
  otherColumns: readonly ColumnMetadata[],
  option: 'joinColumns' | 'inverseJoinColumns',
): JunctionRule {
  const key = home.shardKey!;
  if (key.layout) {
    throw new ShardingConfigError(
      `${relation.entityMetadata.name}.${relation.propertyName} is a many-to-many relation of ${home.metadata.name}, which has a table layout (@Sharded({ tables: ${key.layout.count} })): ` +
        `its junction table "${base.tableName}" would need the same layout, which a TypeORM junction table cannot declare. Map the junction as an entity of its own with @Sharded({ tables: ${key.layout.count}, colocateWith: () => ${home.metadata.name} }) and two many-to-one relations.`,
    );
  }
  const column = homeColumns.find((c) => c.referencedColumn?.databaseName === key.columnName);
  if (!column) {
    const referenced = homeColumns.map((c) => c.referencedColumn?.propertyName ?? c.propertyName).join(', ');
    throw new ShardingConfigError(
      `The junction table "${base.tableName}" of ${relation.entityMetadata.name}.${relation.propertyName} refers to ${home.metadata.name} by (${referenced}), ` +
        `which does not contain its shard key "${key.propertyName}", so its rows cannot be kept on the shards of their ${home.metadata.name} rows. ` +
        `Make "${key.propertyName}" part of ${home.metadata.name}'s primary key, or name it in @JoinTable({ ${option}: [{ name: …, referencedColumnName: '${key.propertyName}' }, …] }).`,
    );
  }
  const rule: TableRule = {
    ...base,
    distribution: 'sharded',
    shardKey: { propertyName: column.propertyName, columnName: column.databaseName, kind: key.kind, algorithm: key.algorithm, placement: key.placement },
  };
  return { rule, placement: { rule, home, homeColumns, other, otherColumns } };
}

/** The owning many-to-many relation whose junction this is. */
function owningRelationOf(junction: EntityMetadata): RelationMetadata | undefined {
  const relation = junction.ownColumns.find((c) => c.relationMetadata)?.relationMetadata;
  return relation?.isManyToManyOwner ? relation : relation?.inverseRelation;
}

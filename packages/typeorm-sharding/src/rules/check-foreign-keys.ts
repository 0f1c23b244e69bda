import type { EntityMetadata } from 'typeorm';
import type { ForeignKeyMetadata } from 'typeorm/metadata/ForeignKeyMetadata.js';
import type { RelationMetadata } from 'typeorm/metadata/RelationMetadata.js';
import { ShardingConfigError } from '../errors/index.js';
import type { ColumnPair } from './colocation.js';
import type { ShardingRules, TableRule } from './table-rule.js';

/**
 * A foreign key must be checkable by each shard on its own rows. It may point to a broadcast
 * table (a full copy is everywhere); between sharded tables it must either pair the shard keys
 * of both (among its columns, with the same placement: the referenced row then sits on the
 * same shard), or link co-located tables (`@Sharded({ colocateWith })`, a junction table and
 * its sides), where each shard enforcing it on its own rows is stricter than one database and
 * so never lets a wrong row in. Unsharded tables may reference each other (all on the default
 * shard). Anything else would need the referenced row on another shard: refused, naming the fix.
 */
export function checkForeignKeys(metadatas: readonly EntityMetadata[], rules: ShardingRules): void {
  for (const metadata of metadatas) {
    const from = rules.ruleOf(metadata.tableName);
    if (!from) continue;
    for (const fk of metadata.foreignKeys) {
      const to = rules.ruleOf(fk.referencedEntityMetadata.tableName);
      const toDistribution = to?.distribution ?? 'unsharded';
      if (toDistribution === 'broadcast') continue;
      if (from.distribution === 'unsharded' && toDistribution === 'unsharded') continue;
      if (from.distribution === 'sharded' && to?.distribution === 'sharded' && (pairsShardKeys(fk, from, to) || rules.joinsColocatedRows(from, to, pairsOf(fk)))) continue;
      throw new ShardingConfigError(problemText(metadata, fk, from, to));
    }
  }
}

function pairsOf(fk: ForeignKeyMetadata): ColumnPair[] {
  return fk.columns.map((c, i) => [c.databaseName, fk.referencedColumns[i]!.databaseName] as const);
}

function pairsShardKeys(fk: ForeignKeyMetadata, from: TableRule, to: TableRule): boolean {
  const a = from.shardKey!;
  const b = to.shardKey!;
  return a.placement === b.placement && pairsOf(fk).some(([x, y]) => x.toLowerCase() === a.columnName.toLowerCase() && y.toLowerCase() === b.columnName.toLowerCase());
}

function problemText(metadata: EntityMetadata, fk: ForeignKeyMetadata, from: TableRule, to: TableRule | undefined): string {
  const target = fk.referencedEntityMetadata;
  const toDistribution = to?.distribution ?? 'unsharded';
  const junction = metadata.tableType === 'junction';
  const relation: RelationMetadata | undefined = junction
    ? fk.columns[0]?.relationMetadata
    : metadata.relations.find((r) => r.foreignKeys.includes(fk));
  const where = junction
    ? `The junction table "${metadata.tableName}" of ${relation ? `${relation.entityMetadata.name}.${relation.propertyName}` : 'a many-to-many relation'} (${from.distribution})`
    : `Entity ${metadata.name} (${from.distribution})`;
  const fixes = [
    junction
      ? `set createForeignKeyConstraints: false on that @ManyToMany (it drops both foreign keys of the junction table)`
      : `set createForeignKeyConstraints: false on the relation ${relation ? `${metadata.name}.${relation.propertyName}` : `to ${target.name}`}`,
  ];
  if (from.distribution === 'sharded' && toDistribution === 'sharded') {
    if (junction) {
      const side = relation && (relation.entityMetadata.tableName === target.tableName ? relation.inverseEntityMetadata : relation.entityMetadata);
      if (side && side.tableName !== target.tableName) fixes.push(`or co-locate ${target.name} with ${side.name} (@Sharded({ colocateWith: () => ${side.name} }) on ${target.name})`);
    } else {
      fixes.push(`or join on both shard keys ("${from.shardKey!.propertyName}" → "${to!.shardKey!.propertyName}") among the join columns`);
      fixes.push(`or declare co-location (@Sharded({ colocateWith: () => ${target.name} }) on ${metadata.name})`);
    }
  } else if (toDistribution === 'unsharded' && from.distribution !== 'unsharded') {
    fixes.push(`or make ${target.name} @Broadcast()`);
  } else if (from.distribution === 'unsharded') {
    fixes.push(`or make ${metadata.name} @Sharded() by a column that references ${target.name}'s shard key`);
  }
  return (
    `${where} has a foreign key (${fk.columns.map((c) => c.databaseName).join(', ')}) to ${target.name} (${toDistribution}) that no shard can check on its own rows: ` +
    `the referenced row may live on another shard. ${capitalize(fixes.join(', '))}.`
  );
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

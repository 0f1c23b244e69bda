/**
 * Schema sync of table-per-shard layouts. TypeORM's schema builder works on entity metadata:
 * it reads the tables the metadata names, compares them with it and writes the DDL. So each
 * shard database's DataSource is given, for an entity with a layout, one copy of its metadata
 * per physical table (`orders_0 … orders_3`), and TypeORM creates, alters and compares every
 * physical table as it does one. The copies name their indexes, unique constraints, checks and
 * foreign keys with the table's index as suffix (`IDX_a` → `IDX_a_2`: SQLite names indexes and
 * MySQL foreign keys per database), as migrations run through the ShardedDataSource do
 * (`rewrite/tokens/table-names.ts`); a foreign key to a table of the same layout points to the
 * table of the same index.
 */
import type { EntityMetadata } from 'typeorm';
import type { TableLayout } from '../algorithms/index.js';

/** A named part of a table's metadata (index, unique, check, exclusion, foreign key). */
type Named = { readonly name: string; readonly entityMetadata: EntityMetadata };

/**
 * `metadatas` with each entity that has a layout replaced by one copy per physical table.
 * `layoutOf` answers an entity's layout; `buildTableName` is the driver's.
 */
export function physicalMetadatas(
  metadatas: readonly EntityMetadata[],
  layoutOf: (metadata: EntityMetadata) => TableLayout | undefined,
  buildTableName: (tableName: string, schema?: string, database?: string) => string,
): EntityMetadata[] {
  const copies = new Map<EntityMetadata, EntityMetadata[]>();
  const copyOf = (metadata: EntityMetadata, index: number): EntityMetadata => {
    let list = copies.get(metadata);
    if (!list) copies.set(metadata, (list = []));
    return (list[index] ??= tableCopy(metadata, layoutOf(metadata)!, index));
  };
  // The copies are made first, then their foreign keys pointed at each other.
  function tableCopy(metadata: EntityMetadata, layout: TableLayout, index: number): EntityMetadata {
    const tableName = layout.physicalName(metadata.tableName, index);
    const copy = Object.create(metadata) as EntityMetadata;
    const named = <T extends Named>(part: T): T => Object.assign(Object.create(part) as T, { name: `${part.name}_${index}`, entityMetadata: copy });
    Object.assign(copy, {
      tableName,
      tableNameWithoutPrefix: tableName,
      tablePath: buildTableName(tableName, metadata.schema, metadata.database),
      indices: metadata.indices.map(named),
      uniques: metadata.uniques.map(named),
      checks: metadata.checks.map(named),
      exclusions: metadata.exclusions.map(named),
    });
    return copy;
  }
  const out = metadatas.flatMap((metadata) => {
    const layout = layoutOf(metadata);
    return layout ? Array.from({ length: layout.count }, (_, i) => copyOf(metadata, i)) : [metadata];
  });
  for (const [metadata, list] of copies) {
    list.forEach((copy, index) => {
      const foreignKeys = metadata.foreignKeys.map((fk) => {
        const target = layoutOf(fk.referencedEntityMetadata) ? copyOf(fk.referencedEntityMetadata, index) : fk.referencedEntityMetadata;
        return Object.assign(Object.create(fk) as typeof fk, { name: `${fk.name}_${index}`, entityMetadata: copy, referencedEntityMetadata: target, referencedTablePath: target.tablePath });
      });
      Object.assign(copy, { foreignKeys });
    });
  }
  return out;
}

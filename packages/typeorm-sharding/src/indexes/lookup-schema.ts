import { EntitySchema, type EntitySchemaColumnOptions } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import { REFS_COLUMN, type GlobalIndex } from '../rules/index.js';

/**
 * The entity of a global index's lookup table, registered beside the user's entities so that
 * `synchronize` and the schema API create it on every shard: the value columns (the primary
 * key) and the owner's shard-key column (also in the primary key of a lookup index, which adds
 * its `gidx_refs` counter), each with its owner column's type, length, charset and
 * collation (equal values must compare equal in the lookup table as in the owner's).
 */
export function lookupSchemaOf(index: GlobalIndex): EntitySchema {
  const columns: Record<string, EntitySchemaColumnOptions> = {};
  for (const name of index.columns) columns[name] = { ...copyOf(columnOf(index, name)), primary: true };
  columns[index.ownerColumn] = { ...copyOf(columnOf(index, index.ownerColumn)), nullable: false, ...(index.unique ? {} : { primary: true }) };
  if (!index.unique) columns[REFS_COLUMN] = { name: REFS_COLUMN, type: 'int', nullable: false };
  return new EntitySchema({ name: index.lookupTable, tableName: index.lookupTable, columns });
}

function columnOf(index: GlobalIndex, name: string): ColumnMetadata {
  return index.owner.columns.find((c) => c.databaseName === name)!;
}

function copyOf(column: ColumnMetadata): EntitySchemaColumnOptions {
  // A join column's own type is its referenced column's (TypeORM copies it when building metadata).
  const source = column.referencedColumn ?? column;
  return {
    name: column.databaseName,
    type: source.type,
    ...(source.length ? { length: source.length } : {}),
    ...(source.precision !== undefined && source.precision !== null ? { precision: source.precision } : {}),
    ...(source.scale !== undefined ? { scale: source.scale } : {}),
    ...(source.unsigned ? { unsigned: true } : {}),
    ...(column.charset ?? source.charset ? { charset: column.charset ?? source.charset } : {}),
    ...(column.collation ?? source.collation ? { collation: column.collation ?? source.collation } : {}),
  };
}

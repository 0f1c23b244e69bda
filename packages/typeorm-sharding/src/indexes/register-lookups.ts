import type { DataSource, EntityMetadata } from 'typeorm';
import { ConnectionMetadataBuilder } from 'typeorm/connection/ConnectionMetadataBuilder.js';
import type { GlobalIndex } from '../rules/index.js';
import { lookupSchemaOf } from './lookup-schema.js';

/**
 * Adds the lookup tables' entities to a DataSource whose own metadata is built (the
 * ShardedDataSource and each shard's): its schema sync and migrations then see them as any
 * entity. Returns the added metadata.
 */
export async function registerLookupTables(ds: DataSource, indexes: readonly GlobalIndex[]): Promise<EntityMetadata[]> {
  if (indexes.length === 0) return [];
  const fresh = indexes.filter((g) => !ds.entityMetadatas.some((m) => m.tableName === g.lookupTable));
  const built = await new ConnectionMetadataBuilder(ds).buildEntityMetadatas(fresh.map(lookupSchemaOf));
  const all = [...ds.entityMetadatas, ...built];
  Object.assign(ds, { entityMetadatas: all, entityMetadatasMap: new Map(all.map((m) => [m.target, m])) });
  return built;
}

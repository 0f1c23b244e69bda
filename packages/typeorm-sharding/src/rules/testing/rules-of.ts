/**
 * Sharding rules of real decorated entities without a database: TypeORM builds the entity
 * metadata (as `initialize()` does, with the driver's naming and type rules), no connection
 * is opened, and the rules are resolved from it.
 */
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { resolveShardingRules } from '../resolve-rules.js';
import type { ShardingRules } from '../table-rule.js';

/** The driver whose metadata rules are built for: MySQL keeps unique constraints as unique indexes, SQLite as constraints. */
export type MetadataDriver = 'better-sqlite3' | 'mysql';

/** Resolves the rules of `entities` over `shardCount` shards (`s0` …). */
export async function rulesOf(entities: Function[], driver: MetadataDriver, shardCount = 4): Promise<ShardingRules> {
  const ds = new DataSource(driver === 'mysql' ? { type: 'mysql', database: 'unused', entities } : { type: 'better-sqlite3', database: ':memory:', entities });
  await (ds as unknown as { buildMetadatas(): Promise<void> }).buildMetadatas();
  const names = Array.from({ length: shardCount }, (_, i) => `s${i}`);
  return resolveShardingRules(ds.entityMetadatas, names, (metadata, property) => {
    const column = metadata.columns.find((c) => c.propertyName === property);
    return column ? String(ds.driver.normalizeType(column)) : '';
  });
}

/** The error `rulesOf` rejects with (undefined when it resolves). */
export async function rulesErrorOf(entities: Function[], driver: MetadataDriver): Promise<Error | undefined> {
  return rulesOf(entities, driver).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
}

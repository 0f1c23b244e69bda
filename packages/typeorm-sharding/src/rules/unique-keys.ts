import type { EntityMetadata } from 'typeorm';
import { sameColumnSet } from './column-set.js';
import type { UniqueKey } from './table-rule.js';

/**
 * The unique keys of an entity's table: its primary key, unique constraints (`@Unique`,
 * `@Column({ unique: true })`), unique indexes and one-to-one join columns. TypeORM records
 * unique constraints as unique indexes on MySQL and as constraints elsewhere; both are read, and
 * one column set is reported once, so the answer does not depend on the driver.
 */
export function uniqueKeysOf(metadata: EntityMetadata): UniqueKey[] {
  const keys: UniqueKey[] = [];
  const seen = new Set<string>();
  const oneToOne = metadata.relations.filter((r) => r.isOneToOneOwner && r.joinColumns.length > 0);
  const add = (columns: readonly string[], label: string, name: string | undefined) => {
    if (columns.length === 0) return;
    const id = [...columns].map((c) => c.toLowerCase()).sort().join('\u0000');
    if (seen.has(id)) return;
    seen.add(id);
    const relation = oneToOne.find((r) => sameColumnSet(r.joinColumns.map((c) => c.databaseName), columns));
    keys.push({ label: relation && label !== 'primary key' ? `one-to-one join column of "${relation.propertyName}"` : label, columns, name });
  };
  add(metadata.primaryColumns.map((c) => c.databaseName), 'primary key', 'PRIMARY');
  for (const u of metadata.uniques) add(u.columns.map((c) => c.databaseName), 'unique key', u.name);
  for (const i of metadata.indices) if (i.isUnique) add(i.columns.map((c) => c.databaseName), 'unique key', i.name);
  return keys;
}

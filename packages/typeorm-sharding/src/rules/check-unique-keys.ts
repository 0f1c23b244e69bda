import { getSnowflakeProperties } from '../decorators/index.js';
import { ShardingConfigError } from '../errors/index.js';
import { hasColumn, sameColumnSet } from './column-set.js';
import type { TableRule, UniqueKey } from './table-rule.js';

/**
 * A unique key of a sharded table is enforced by each shard's database on that shard's rows
 * only. It is unique overall when it contains the shard key (equal values then live on one
 * shard), or when its values are generated uuids or `@Snowflake()` ids (unique by
 * construction). Any other unique key gets a global index (a lookup table, see
 * `global-index.ts`), returned here, unless it is listed in `@Sharded({ uniquePerShard })`
 * (accepting per-shard uniqueness is then a decision written in the code). A key whose columns
 * cannot route a lookup table (neither integer nor text) is refused, naming the entity, the
 * columns and the fixes.
 *
 * @param kindOf the key kind of a column (database name), undefined when it can be no shard key
 */
export function checkUniqueKeys(rule: TableRule, uniquePerShard: readonly (string | readonly string[])[] = [], kindOf: (column: string) => string | undefined = () => undefined): UniqueKey[] {
  if (rule.distribution !== 'sharded') return [];
  const metadata = rule.metadata;
  const name = metadata.name;
  const key = rule.shardKey!;
  const columnOf = (property: string) =>
    metadata.columns.find((c) => c.propertyName === property) ?? metadata.columns.find((c) => c.databaseName === property);

  if (!Array.isArray(uniquePerShard)) throw new ShardingConfigError(`Entity ${name}: uniquePerShard must be an array of property names (an array of names for a composite key).`);
  const declared = uniquePerShard.map((entry) => {
    const properties = typeof entry === 'string' ? [entry] : Array.isArray(entry) && entry.every((p) => typeof p === 'string') ? [...entry] : undefined;
    if (!properties || properties.length === 0) {
      throw new ShardingConfigError(`Entity ${name}: uniquePerShard entry ${JSON.stringify(entry)} is neither a property name nor a non-empty array of property names.`);
    }
    const columns = properties.map((p) => {
      const column = columnOf(p);
      if (!column) throw new ShardingConfigError(`Entity ${name}: uniquePerShard names "${p}", which is not a column of ${name}.`);
      return column.databaseName;
    });
    return { properties, columns, used: false };
  });

  const unchecked: UniqueKey[] = [];
  const indexed: UniqueKey[] = [];
  for (const unique of rule.uniqueKeys) {
    if (hasColumn(unique.columns, key.columnName)) continue;
    if (unique.columns.length === 1 && (isGeneratedUuid(rule, unique.columns[0]!) || isSnowflake(rule, unique.columns[0]!))) continue;
    const accepted = declared.find((d) => sameColumnSet(d.columns, unique.columns));
    if (accepted) {
      accepted.used = true;
      continue;
    }
    if (unique.columns.every((c) => kindOf(c) !== undefined)) indexed.push(unique);
    else unchecked.push(unique);
  }
  const unused = declared.find((d) => !d.used);
  if (unused) {
    throw new ShardingConfigError(
      `Entity ${name}: uniquePerShard lists (${unused.properties.join(', ')}), but ${name} has no unique key on exactly these columns that lacks the shard key "${key.propertyName}"; remove the entry.`,
    );
  }
  if (unchecked.length === 0) return indexed;

  const propertyOf = (column: string) => metadata.columns.find((c) => c.databaseName === column)?.propertyName ?? column;
  const described = unchecked.map((u) => `${u.label} (${u.columns.map(propertyOf).join(', ')})`);
  const entries = unchecked.map((u) => (u.columns.length === 1 ? `'${propertyOf(u.columns[0]!)}'` : `[${u.columns.map((c) => `'${propertyOf(c)}'`).join(', ')}]`));
  const hints = unchecked.map((u) => {
    const columns = [...u.columns.map(propertyOf), key.propertyName].map((c) => `'${c}'`).join(', ');
    if (u.label === 'primary key') return `@PrimaryColumn() on "${key.propertyName}" too`;
    if (u.label.startsWith('one-to-one')) return `join columns that include "${key.propertyName}"`;
    return `@Unique([${columns}])`;
  });
  throw new ShardingConfigError(
    `Entity ${name}: its ${described.join(' and its ')} ${unchecked.length === 1 ? 'does' : 'do'} not contain the shard key "${key.propertyName}". ` +
      'Each shard can only enforce a unique key on its own rows, so equal values on different shards would go in silently. ' +
      `Either add "${key.propertyName}" to ${unchecked.length === 1 ? 'the key' : 'each key'} (${hints.join('; ')}), ` +
      `or accept uniqueness per shard with @Sharded({ uniquePerShard: [${entries.join(', ')}] }) when the values are unique by construction (snowflake ids …) or duplicates across shards are acceptable. ` +
      'Generated uuid and @Snowflake() keys are accepted as they are; a global unique index (a lookup table) is built only for keys whose columns are all integers or text.',
  );
}

function isSnowflake(rule: TableRule, column: string): boolean {
  const property = rule.metadata.columns.find((x) => x.databaseName === column)?.propertyName;
  return typeof rule.metadata.target === 'function' && property !== undefined && getSnowflakeProperties(rule.metadata.target).includes(property);
}

function isGeneratedUuid(rule: TableRule, column: string): boolean {
  const c = rule.metadata.columns.find((x) => x.databaseName === column);
  return c !== undefined && c.isGenerated && c.generationStrategy === 'uuid';
}

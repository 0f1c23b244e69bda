import { ShardingConfigError } from '../errors/index.js';
import { hasColumn, sameColumnSet } from './column-set.js';
import { lookupIndexOf, REFS_COLUMN, type GlobalIndex } from './global-index.js';
import type { TableRule } from './table-rule.js';

/**
 * The lookup indexes `@Sharded({ lookups })` declares on a sharded rule. Each entry is checked
 * against the entity: its properties must be columns, integers or text (a lookup table is
 * routed by its first column), none of them the shard key (such reads are routed already), and
 * it must not repeat a global unique index on the same columns (which routes the same reads).
 *
 * @param kindOf the key kind of a column (database name), undefined when it can be no shard key
 * @param unique the rule's global unique indexes
 */
export function lookupIndexesOf(
  rule: TableRule,
  lookups: readonly (string | readonly string[])[] | undefined,
  kindOf: (column: string) => string | undefined,
  unique: readonly GlobalIndex[],
): GlobalIndex[] {
  if (lookups === undefined) return [];
  const name = rule.metadata.name;
  if (!Array.isArray(lookups)) throw new ShardingConfigError(`Entity ${name}: lookups must be an array of property names (an array of names for a composite index).`);
  if (rule.distribution !== 'sharded') throw new ShardingConfigError(`Entity ${name}: lookups are indexes of a sharded entity; ${name} is ${rule.distribution}.`);
  const key = rule.shardKey!;
  const columnOf = (property: string) => rule.metadata.columns.find((c) => c.propertyName === property) ?? rule.metadata.columns.find((c) => c.databaseName === property);
  const out: GlobalIndex[] = [];
  for (const entry of lookups) {
    const properties = typeof entry === 'string' ? [entry] : Array.isArray(entry) && entry.length > 0 && entry.every((p) => typeof p === 'string') ? [...entry] : undefined;
    if (!properties) throw new ShardingConfigError(`Entity ${name}: lookups entry ${JSON.stringify(entry)} is neither a property name nor a non-empty array of property names.`);
    const columns = properties.map((p) => {
      const column = columnOf(p);
      if (!column) throw new ShardingConfigError(`Entity ${name}: lookups names "${p}", which is not a column of ${name}.`);
      if (column.databaseName === REFS_COLUMN) throw new ShardingConfigError(`Entity ${name}: lookups names "${p}", whose column "${REFS_COLUMN}" is the name of the lookup table's own counter column; rename the column.`);
      if (kindOf(column.databaseName) === undefined) {
        throw new ShardingConfigError(`Entity ${name}: lookups names "${p}", which is neither an integer nor a text column; a lookup table is sharded by its values, which must be integers or text.`);
      }
      return column.databaseName;
    });
    if (new Set(columns).size !== columns.length) throw new ShardingConfigError(`Entity ${name}: lookups entry (${properties.join(', ')}) names a column twice.`);
    if (hasColumn(columns, key.columnName)) {
      throw new ShardingConfigError(`Entity ${name}: lookups entry (${properties.join(', ')}) contains the shard key "${key.propertyName}"; reads by it reach one shard already, remove the entry.`);
    }
    if (unique.some((g) => sameColumnSet(g.columns, columns)) || out.some((g) => sameColumnSet(g.columns, columns))) {
      throw new ShardingConfigError(`Entity ${name}: lookups entry (${properties.join(', ')}) repeats an index on the same columns (a unique key has its own global index, which routes the same reads); remove the entry.`);
    }
    out.push(lookupIndexOf(rule, columns));
  }
  return out;
}

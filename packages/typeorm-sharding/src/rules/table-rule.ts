import type { EntityMetadata } from 'typeorm';
import type { KeyKind, ShardingAlgorithm, TableLayout } from '../algorithms/index.js';
import { NO_COLOCATION, type Colocation, type ColumnPair } from './colocation.js';
import type { GlobalIndex } from './global-index.js';

/** Where a table's rows live: spread over the shards, copied to every shard, or on the default shard only. */
export type TableDistribution = 'sharded' | 'broadcast' | 'unsharded';

/** How one sharded table is partitioned. */
export interface ShardKeyRule {
  /** Property name on the entity (`id`). */
  readonly propertyName: string;
  /** Column name in the database (`id`, `order_id`). */
  readonly columnName: string;
  /** Integer or string family of the key column: decides how keys are canonicalised. */
  readonly kind: KeyKind;
  /** Maps a key value to a shard index. */
  readonly algorithm: ShardingAlgorithm;
  /**
   * Identity of the placement (algorithm, its parameters, the key kind and the table layout):
   * two keys with the same placement put equal values on the same shard, in the same table.
   */
  readonly placement: string;
  /** A table-per-shard layout (`@Sharded({ tables })`): the physical tables of every shard database; undefined: the table itself. */
  readonly layout?: TableLayout | undefined;
}

/** One unique key of a table (primary key, unique constraint or unique index). */
export interface UniqueKey {
  /** What declares it, for messages: `primary key`, `unique constraint "UQ_…"`, `one-to-one join column` … */
  readonly label: string;
  /** Database column names. */
  readonly columns: readonly string[];
  /** The index's name in the database (`PRIMARY`, `UQ_…`, `IDX_…`, `REL_…`): what a duplicate's message names. */
  readonly name?: string | undefined;
}

/** Where one table's rows live, as resolved from the decorators at `initialize()`. */
export interface TableRule {
  /** Table name as it appears in SQL (without database/schema prefix). */
  readonly tableName: string;
  readonly distribution: TableDistribution;
  /** The entity the rule came from (for a junction table: TypeORM's junction metadata). */
  readonly metadata: EntityMetadata;
  /** Present exactly when `distribution === 'sharded'`. */
  readonly shardKey: ShardKeyRule | undefined;
  /** The table's unique keys: what an `ON DUPLICATE KEY UPDATE` or `INSERT IGNORE` may fire on. */
  readonly uniqueKeys: readonly UniqueKey[];
}

/**
 * All table rules of one ShardedDataSource, looked up by table name. Tables that are not
 * entities of the data source (information_schema, the migrations table, raw tables) are
 * unsharded: they live on the default shard.
 */
export class ShardingRules {
  private readonly byTable: ReadonlyMap<string, TableRule>;

  constructor(
    rules: readonly TableRule[],
    /** Names of the shards in index order; index 0 is the default shard. */
    readonly shardNames: readonly string[],
    /** Which sharded tables keep related rows together (`@Sharded({ colocateWith })`, junction tables). */
    private readonly colocation: Colocation = NO_COLOCATION,
    /** Unique keys enforced across shards by a lookup table (see `global-index.ts`). */
    readonly globalIndexes: readonly GlobalIndex[] = [],
  ) {
    // MySQL table names are case-sensitive on Linux but TypeORM always writes the
    // entity's own spelling; lower-casing here keeps raw queries with other casing routed.
    this.byTable = new Map(rules.map((r) => [r.tableName.toLowerCase(), r]));
  }

  /** The rule of a table, or undefined for a table no entity declares. */
  ruleOf(tableName: string): TableRule | undefined {
    return this.byTable.get(tableName.toLowerCase());
  }

  /** Distribution of a table; undeclared tables are `unsharded`. */
  distributionOf(tableName: string): TableDistribution {
    return this.ruleOf(tableName)?.distribution ?? 'unsharded';
  }

  /** The global indexes of an owner table (none for other tables). */
  globalIndexesOf(tableName: string): readonly GlobalIndex[] {
    return this.globalIndexes.length === 0 ? [] : this.globalIndexes.filter((g) => g.table.toLowerCase() === tableName.toLowerCase());
  }

  /** These rules with the lookup tables of the global indexes added (their entities exist only once the indexes are known). */
  withLookupTables(lookups: readonly TableRule[]): ShardingRules {
    return new ShardingRules([...this.byTable.values(), ...lookups], this.shardNames, this.colocation, this.globalIndexes);
  }

  /** Every rule, for schema sync and introspection. */
  all(): Iterable<TableRule> {
    return this.byTable.values();
  }

  /** True when two different sharded entities were declared co-located (`@Sharded({ colocateWith })`, transitively). */
  areColocated(a: TableRule, b: TableRule): boolean {
    return this.colocation.areColocated(a.tableName, b.tableName);
  }

  /**
   * True when a join of sharded tables `a` and `b` on these equal columns (`[column of a, column
   * of b]` pairs, ANDed) only pairs rows that live on the same shard: the columns are those of a
   * relation between them and the two are co-located. Such a join can run shard by shard.
   */
  joinsColocatedRows(a: TableRule, b: TableRule, equalColumns: readonly ColumnPair[]): boolean {
    return this.colocation.joinsRelatedRows(a.tableName, b.tableName, equalColumns);
  }
}

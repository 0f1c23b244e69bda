import type { EntityMetadata } from 'typeorm';
import type { KeyKind, ShardingAlgorithm } from '../algorithms/index.js';
import type { TableDistribution } from '../plan/plan.js';

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
}

/** Where one table's rows live, as resolved from the decorators at `initialize()`. */
export interface TableRule {
  /** Table name as it appears in SQL (without database/schema prefix). */
  readonly tableName: string;
  readonly distribution: TableDistribution;
  /** The entity the rule came from. */
  readonly metadata: EntityMetadata;
  /** Present exactly when `distribution === 'sharded'`. */
  readonly shardKey: ShardKeyRule | undefined;
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

  /** Every rule, for schema sync and introspection. */
  all(): Iterable<TableRule> {
    return this.byTable.values();
  }
}

import 'reflect-metadata';
import { SNOWFLAKE_PROPERTIES } from './metadata-keys.js';

/**
 * Gives the column a Snowflake id (`sharding.keyGenerator`) when an entity is inserted without
 * a value for it (`undefined` or `null`): by `save()`, `insert()`, `upsert()` or
 * QueryBuilder `.insert()`. The id is set on the entity before TypeORM writes the INSERT, so the
 * shard is chosen from it and it comes back in the entity and in `InsertResult.identifiers`
 * exactly as an id you had set yourself.
 *
 * Use it with a `bigint` column (the id is a decimal string, as TypeORM carries BIGINT; on SQLite
 * any integer column), or a text column of at least 19 characters (the id zero-padded to 19
 * digits, so that text order is id order):
 *
 * ```ts
 * @Entity('orders') @Sharded({ algorithm: 'mod' })
 * class Order {
 *   @PrimaryColumn('bigint') @ShardKey() @Snowflake() id!: string;
 * }
 * ```
 *
 * A `@Snowflake()` key is unique across shards by construction, so it may be a unique key
 * without the shard key. Statements that skip TypeORM's listeners (`save(e, { listeners: false })`,
 * `.callListeners(false)`, raw SQL) get no id: take one from `dataSource.keyGenerator.nextId()`.
 */
export function Snowflake(): PropertyDecorator {
  return (prototype, propertyKey) => {
    const target = prototype.constructor;
    const own: string[] = Reflect.getOwnMetadata(SNOWFLAKE_PROPERTIES, target) ?? [];
    Reflect.defineMetadata(SNOWFLAKE_PROPERTIES, [...own, String(propertyKey)], target);
  };
}

/** Properties marked `@Snowflake()` on a class and its ancestors. */
export function getSnowflakeProperties(target: Function): readonly string[] {
  const found = new Set<string>();
  for (let t: unknown = target; typeof t === 'function' && t !== Function.prototype; t = Object.getPrototypeOf(t)) {
    const own: string[] | undefined = Reflect.getOwnMetadata(SNOWFLAKE_PROPERTIES, t as object);
    for (const property of own ?? []) found.add(property);
  }
  return [...found];
}

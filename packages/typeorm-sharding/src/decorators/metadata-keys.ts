/** reflect-metadata keys under which the decorators record what they were given. */
export const SHARDED_KEY = Symbol.for('typeorm-sharding:sharded');
export const SHARD_KEY_PROPERTIES = Symbol.for('typeorm-sharding:shard-key-properties');
export const BROADCAST_KEY = Symbol.for('typeorm-sharding:broadcast');
export const SNOWFLAKE_PROPERTIES = Symbol.for('typeorm-sharding:snowflake-properties');

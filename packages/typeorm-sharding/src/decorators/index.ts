export { Sharded, getShardedOptions, type ShardedOptions } from './sharded.js';
export { ShardKey, getShardKeyProperties } from './shard-key.js';
export { Broadcast, isBroadcast } from './broadcast.js';
export { Snowflake, getSnowflakeProperties } from './snowflake.js';

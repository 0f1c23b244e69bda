export * from './sharding-error.js';
export * from './shard-query-error.js';

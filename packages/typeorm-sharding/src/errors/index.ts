export * from './sharding-error.js';

export { ShardingRules, type TableRule, type ShardKeyRule } from './table-rule.js';
export { resolveShardingRules } from './resolve-rules.js';

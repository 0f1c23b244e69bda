export { ShardingRules, type TableRule, type ShardKeyRule, type UniqueKey } from './table-rule.js';
export { resolveShardingRules, placementOf, withLookupTables, foldOf, type GovernedPlacement } from './resolve-rules.js';
export { lookupTableName, REFS_COLUMN, type GlobalIndex } from './global-index.js';
export { Colocation, type ColumnPair, type ColocatedLink } from './colocation.js';
export { conflictProblem, type ConflictHandling } from './conflict-target.js';
export { partitionCountOf, partitionOf, placeOf, type PartitionPlace } from './partition.js';
export { resolveKeyPartitioning, type KeyPartitioning } from './key-partitioning.js';

export { installFence, releaseFence, removeFence, isFencedError, FENCE_BYPASS_VARIABLE, FENCE_TABLE, fenceTriggerName } from './fence.js';
export type { InstallFenceOptions, ReleaseFenceOptions, RemoveFenceOptions, FencedErrorFacts, FencedTable, FenceRange } from './fence.js';
export type { SqlConnection } from './sql-connection.js';
export { TopologyChangedError, TopologyConflictError, TopologyDocumentError } from './topology-errors.js';
export { reassignBuckets, validateTopologyDocument, type TopologyDocument, type TopologyShard } from './topology-document.js';
export type { TopologyView } from './topology-runtime.js';
export type { TopologyOptions, MysqlTopologyOptions, SqliteTopologyOptions } from './topology-options.js';
export { TopologyStore, DEFAULT_TOPOLOGY_DATABASE, type StoredTopology } from './topology-store.js';

export { installFence, releaseFence, removeFence, isFencedError, FENCE_BYPASS_VARIABLE, FENCE_TABLE, fenceTriggerName } from './fence.js';
export type { InstallFenceOptions, ReleaseFenceOptions, RemoveFenceOptions, FencedErrorFacts, FencedTable, FenceRange } from './fence.js';
export type { SqlConnection } from './sql-connection.js';
export { TopologyChangedError, TopologyConflictError, TopologyDocumentError } from './topology-errors.js';

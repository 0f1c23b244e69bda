export * from './route-types.js';
export { routeByKey } from './route.js';
export { ownerRoute } from './owner-units.js';
export { shardsOf, type ShardSet } from './evaluate-condition.js';
export { checkKeyAssignment } from './key-assignment.js';

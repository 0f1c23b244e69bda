import type { HintProblem } from './hints/parse-hints.js';
import type { RoutingHintName } from './hints/hint.js';
import type { DownCause } from './health/health-state.js';
import type { RouteReason } from './decision/decide-role.js';
import type { NodeRole } from './topology.js';

/** A node was marked down. */
export interface NodeDownEvent {
  readonly server: string;
  readonly node: string;
  readonly role: NodeRole;
  readonly cause: DownCause;
  /** From the first failed heartbeat (or statement) to the node marked down, in ms. */
  readonly failoverMs: number;
}

/** A node came back (it warms up from here). */
export interface NodeUpEvent {
  readonly server: string;
  readonly node: string;
  readonly role: NodeRole;
  readonly downForMs: number;
}

/** A hint was given that the rules could not follow (reported once per shape). */
export interface HintOverriddenEvent {
  readonly hint: RoutingHintName;
  /** The rule that won (`write`, `transaction`, …). */
  readonly reason: RouteReason;
}

/** A replica was taken out of (or put back into) read rotation for its lag, or because its lag could not be read. */
export interface LagEvent {
  readonly server: string;
  readonly node: string;
  /** NaN when the lag is unknown (the lag check failed: see the warning). */
  readonly lagMs: number;
  readonly eligible: boolean;
}

/** The router's events (a typed EventEmitter map). */
export interface RouterEventMap {
  'node-down': [NodeDownEvent];
  'node-up': [NodeUpEvent];
  'hint-problem': [HintProblem];
  'hint-overridden': [HintOverriddenEvent];
  lag: [LagEvent];
}

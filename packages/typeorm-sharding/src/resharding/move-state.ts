import { ReshardingError } from './errors.js';

/**
 * The states of a move, in workflow order:
 *
 * ```
 * planned → copying → catching_up → verified → cutting_over → switched → completed
 *    └──────────┴──────────┴────────────┴───────────┴→ cancelled      └→ rolled_back
 *                                 (any step may end in failed, which cancel or a retry leaves)
 * ```
 *
 * `switched` means the target owns the buckets and the reverse stream (target → source) is
 * kept so that `rollback` loses nothing.
 */
export const MOVE_STATES = [
  'planned',
  'copying',
  'catching_up',
  'verified',
  'cutting_over',
  'switched',
  'completed',
  'rolled_back',
  'cancelled',
  'failed',
] as const;

export type MoveState = (typeof MOVE_STATES)[number];

/** The operations a move accepts; each names the states it may start from. */
export type MoveAction = 'start' | 'verify' | 'switch' | 'rollback' | 'complete' | 'cancel';

/**
 * Which states each action may run from. Every action is idempotent: running it again from the
 * state it leads to (e.g. `start` from `catching_up`, which only catches up further) is allowed
 * where that is harmless, and resumes after a killed mover.
 */
const ALLOWED: Readonly<Record<MoveAction, readonly MoveState[]>> = {
  start: ['planned', 'copying', 'catching_up', 'verified', 'failed'],
  verify: ['catching_up', 'verified'],
  // `cutting_over`: a mover killed during the cutover resumes it (or rolls the fence back).
  switch: ['catching_up', 'verified', 'cutting_over'],
  rollback: ['switched', 'rolled_back'],
  complete: ['switched', 'completed'],
  cancel: ['planned', 'copying', 'catching_up', 'verified', 'cutting_over', 'failed', 'cancelled'],
};

/** The states that end a move: nothing more can be done to it. */
export const TERMINAL_STATES: readonly MoveState[] = ['completed', 'rolled_back', 'cancelled'];

/** Throws ReshardingError(`bad-state`) unless `action` may run from `state`. */
export function checkAction(action: MoveAction, state: MoveState, moveId?: number): void {
  if (!ALLOWED[action].includes(state)) {
    throw new ReshardingError('bad-state', `Move ${moveId ?? '?'} is ${state}: ${action} runs only from ${ALLOWED[action].join(', ')}.`, moveId === undefined ? {} : { moveId });
  }
}

/** True when `action` may run from `state`. */
export function allows(action: MoveAction, state: MoveState): boolean {
  return ALLOWED[action].includes(state);
}

/** Parses a state read from the database; an unknown one is refused, never guessed. */
export function parseMoveState(value: unknown): MoveState {
  if (typeof value === 'string' && (MOVE_STATES as readonly string[]).includes(value)) return value as MoveState;
  throw new ReshardingError('bad-state', `[BUG] unknown move state ${JSON.stringify(value)} in tsh_moves`);
}

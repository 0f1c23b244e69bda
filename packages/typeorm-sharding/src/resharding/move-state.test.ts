import { describe, expect, it } from 'vitest';
import { ReshardingError } from './errors.js';
import { allows, checkAction, MOVE_STATES, parseMoveState } from './move-state.js';

describe('move states', () => {
  it('switch only after the catch-up, rollback and complete only after the switch', () => {
    expect(allows('switch', 'planned')).toBe(false);
    expect(allows('switch', 'copying')).toBe(false);
    expect(allows('switch', 'verified')).toBe(true);
    expect(allows('rollback', 'verified')).toBe(false);
    expect(allows('complete', 'cutting_over')).toBe(false);
    expect(allows('complete', 'switched')).toBe(true);
  });

  it('cancel is refused once the buckets have switched', () => {
    for (const state of ['switched', 'completed', 'rolled_back'] as const) expect(allows('cancel', state)).toBe(false);
    for (const state of ['planned', 'copying', 'catching_up', 'verified', 'cutting_over', 'failed'] as const) expect(allows('cancel', state)).toBe(true);
  });

  it('every action may be repeated from the state it leads to (resumable)', () => {
    expect(allows('start', 'catching_up')).toBe(true);
    expect(allows('verify', 'verified')).toBe(true);
    expect(allows('switch', 'cutting_over')).toBe(true);
    expect(allows('rollback', 'rolled_back')).toBe(true);
    expect(allows('complete', 'completed')).toBe(true);
    expect(allows('cancel', 'cancelled')).toBe(true);
  });

  it('refuses with a typed error; an unknown stored state is a bug, not a guess', () => {
    expect(() => checkAction('switch', 'planned', 7)).toThrow(ReshardingError);
    expect(() => parseMoveState('half_done')).toThrow(/unknown move state/);
    for (const s of MOVE_STATES) expect(parseMoveState(s)).toBe(s);
  });
});

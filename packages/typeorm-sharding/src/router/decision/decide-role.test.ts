import { describe, expect, it } from 'vitest';
import { hintSet, NO_HINTS, type RoutingHintName } from '../hints/hint.js';
import { DEFAULT_ANALYTICS } from '../router-options.js';
import type { StatementDescriptor } from '../statement.js';
import { readsSessionState } from '../statement.js';
import { decideRole } from './decide-role.js';
import { classifyShape } from './shape-route.js';

interface Case {
  readonly statement: StatementDescriptor;
  readonly hints?: RoutingHintName[];
  readonly scopeHints?: RoutingHintName[];
  readonly defaultReads?: 'replica' | 'primary';
  readonly masterRunner?: boolean;
  readonly expected: [string, string, string?];
}

const select: StatementDescriptor = { kind: 'select' };

// [role, reason, overridden hint]
const CASES: Record<string, Case> = {
  'a plain read': { statement: select, expected: ['replica', 'read'] },
  'an INSERT': { statement: { kind: 'insert' }, expected: ['primary', 'write'] },
  'an UPDATE': { statement: { kind: 'update' }, expected: ['primary', 'write'] },
  'a DELETE': { statement: { kind: 'delete' }, expected: ['primary', 'write'] },
  'DDL': { statement: { kind: 'ddl' }, expected: ['primary', 'ddl'] },
  'BEGIN': { statement: { kind: 'transaction' }, expected: ['primary', 'transaction-control'] },
  'SET': { statement: { kind: 'session' }, expected: ['primary', 'other'] },
  'SHOW and the like': { statement: { kind: 'other' }, expected: ['primary', 'other'] },
  'FOR UPDATE': { statement: { kind: 'select', locking: 'for-update' }, expected: ['primary', 'locking-read'] },
  'LOCK IN SHARE MODE': { statement: { kind: 'select', locking: 'for-share' }, expected: ['primary', 'locking-read'] },
  'LAST_INSERT_ID()': { statement: { kind: 'select', readsSessionState: true }, expected: ['primary', 'session-state'] },
  'a read in a transaction': { statement: { kind: 'select', inTransaction: true }, expected: ['primary', 'transaction'] },
  'FORCE_MASTER on a read': { statement: select, hints: ['FORCE_MASTER'], expected: ['primary', 'hint:FORCE_MASTER'] },
  'FORCE_MASTER from the scope': { statement: select, scopeHints: ['FORCE_MASTER'], expected: ['primary', 'hint:FORCE_MASTER'] },
  'FORCE_SLAVE on a write': { statement: { kind: 'update' }, hints: ['FORCE_SLAVE'], expected: ['primary', 'write', 'FORCE_SLAVE'] },
  'FORCE_SLAVE on a locking read': { statement: { kind: 'select', locking: 'for-update' }, hints: ['FORCE_SLAVE'], expected: ['primary', 'locking-read', 'FORCE_SLAVE'] },
  'FORCE_SLAVE in a transaction': { statement: { kind: 'select', inTransaction: true }, scopeHints: ['FORCE_SLAVE'], expected: ['primary', 'transaction', 'FORCE_SLAVE'] },
  'FORCE_SLAVE on an analytics read': { statement: { kind: 'select', hasAggregates: true, shardCount: 16 }, hints: ['FORCE_SLAVE'], expected: ['replica', 'hint:FORCE_SLAVE'] },
  'FORCE_SLAVE with defaultReads primary': { statement: select, hints: ['FORCE_SLAVE'], defaultReads: 'primary', expected: ['replica', 'hint:FORCE_SLAVE'] },
  'MASTER_ONLY on BEGIN': { statement: { kind: 'transaction' }, hints: ['MASTER_ONLY'], expected: ['primary', 'hint:MASTER_ONLY'] },
  'a read under a MASTER_ONLY scope': { statement: select, scopeHints: ['MASTER_ONLY'], expected: ['primary', 'hint:MASTER_ONLY'] },
  'defaultReads primary': { statement: select, defaultReads: 'primary', expected: ['primary', 'default-reads'] },
  'a read of a master QueryRunner': { statement: select, masterRunner: true, expected: ['primary', 'master-runner'] },
  'FORCE_SLAVE on a read of a master QueryRunner': { statement: select, masterRunner: true, hints: ['FORCE_SLAVE'], expected: ['replica', 'hint:FORCE_SLAVE'] },
  'a write of a slave QueryRunner': { statement: { kind: 'insert' }, masterRunner: false, expected: ['primary', 'write'] },
  'an aggregate over many shards': { statement: { kind: 'select', hasAggregates: true, shardCount: 4 }, expected: ['analytics', 'analytics'] },
  'an aggregate on one shard (a point read)': { statement: { kind: 'select', hasAggregates: true, shardCount: 1 }, expected: ['replica', 'read'] },
  'a GROUP BY over two shards': { statement: { kind: 'select', hasGroupBy: true, shardCount: 2 }, expected: ['analytics', 'analytics'] },
  'a full scan': { statement: { kind: 'select', fullScan: true, shardCount: 1 }, expected: ['analytics', 'analytics'] },
  'a plain read over 8 shards': { statement: { kind: 'select', shardCount: 8 }, expected: ['analytics', 'analytics'] },
  'a plain read over 7 shards': { statement: { kind: 'select', shardCount: 7 }, expected: ['replica', 'read'] },
  'an aggregate with FOR UPDATE': { statement: { kind: 'select', hasAggregates: true, locking: 'for-update', shardCount: 16 }, expected: ['primary', 'locking-read'] },
};

describe('the routing rules, in the order of the article', () => {
  it.each(Object.entries(CASES))('%s', (_, c) => {
    const shape = classifyShape({ ...c.statement, hints: c.hints ? hintSet(c.hints) : NO_HINTS }, DEFAULT_ANALYTICS);
    const hints = hintSet([...(c.hints ?? []), ...(c.scopeHints ?? [])]);
    const d = decideRole(shape, { inTransaction: c.statement.inTransaction ?? false, shardCount: c.statement.shardCount ?? 1, hints, defaultReads: c.defaultReads ?? 'replica', masterRunner: c.masterRunner });
    expect([d.role, d.reason, d.overridden].filter((x) => x !== undefined)).toEqual(c.expected);
  });

  it('the analytics rule can be switched off per criterion', () => {
    const shape = classifyShape({ kind: 'select', hasAggregates: true }, { ...DEFAULT_ANALYTICS, aggregates: false });
    expect(shape.analyticsFromShards).toBe(DEFAULT_ANALYTICS.minShards);
  });
});

describe('readsSessionState', () => {
  it.each([
    ['SELECT LAST_INSERT_ID()', true],
    ['SELECT last_insert_id ( ) AS id', true],
    ['SELECT FOUND_ROWS()', true],
    ['SELECT GET_LOCK(?, 10)', true],
    ['SELECT NEXT VALUE FOR seq', true],
    ['SELECT @@identity', true],
    ['SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`last_insert` = ?', false],
  ])('%s → %s', (sql, expected) => {
    expect(readsSessionState(sql)).toBe(expected);
  });
});

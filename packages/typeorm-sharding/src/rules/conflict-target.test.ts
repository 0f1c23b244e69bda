import { describe, expect, it } from 'vitest';
import { fakeRules } from '../plan/testing/fake-rules.js';
import { conflictProblem, type ConflictHandling } from './conflict-target.js';

// `profiles`: sharded by userId, every unique key contains it. `accounts`: sharded by userId,
// primary key id (accepted per shard) and a unique key (userId, email).
const rules = fakeRules([
  { table: 'profiles', distribution: 'sharded', columns: { userId: 'int', bio: 'varchar' }, key: { column: 'userId' }, uniqueKeys: [['userId']] },
  { table: 'accounts', distribution: 'sharded', columns: { id: 'int', userId: 'int', email: 'varchar' }, key: { column: 'userId' }, uniqueKeys: [['id'], ['userId', 'email']] },
]);
const profiles = rules.ruleOf('profiles')!;
const accounts = rules.ruleOf('accounts')!;
const on = (target: ConflictHandling['target'], assignments: ConflictHandling['assignments'] = []): ConflictHandling => ({ clause: 'X', target, assignments });

describe('conflictProblem (upserts into sharded tables)', () => {
  it('accepts a conflict target that contains the shard key', () => {
    expect(conflictProblem(accounts, on(['email', 'userId']))).toBeUndefined();
  });
  it('refuses a conflict target without the shard key, naming the columns and a target that would do', () => {
    const problem = conflictProblem(accounts, on(['email']));
    expect(problem).toMatch(/X on \(email\) into sharded table "accounts": the conflict target does not contain the shard key "userId"/);
    expect(problem).toMatch(/upsert\(…, \['email', 'userId'\]\)/);
  });
  it('accepts a clause that fires on any unique key when every unique key contains the shard key', () => {
    expect(conflictProblem(profiles, on('any-unique-key'))).toBeUndefined();
  });
  it('refuses a clause that fires on any unique key when one unique key lacks the shard key', () => {
    const problem = conflictProblem(accounts, on('any-unique-key'));
    expect(problem).toMatch(/fires on any unique key, and its primary key \(id\) does not contain the shard key "userId"/);
    expect(problem).toMatch(/a primary key \(id, userId\)/);
  });
  it('accepts assignments that keep the shard key (VALUES(key), EXCLUDED.key, the key itself)', () => {
    for (const value of ['VALUES ( `userId` )', 'EXCLUDED . "userId"', 'userId', '`profiles` . `userId`']) {
      expect(conflictProblem(profiles, on(['userId'], [{ column: 'userId', value }])), value).toBeUndefined();
    }
  });
  it('refuses an assignment that gives the shard key a new value', () => {
    expect(conflictProblem(profiles, on('any-unique-key', [{ column: 'userId', value: 'userId + 1' }]))).toMatch(/sets the shard key "userId" to userId \+ 1/);
    expect(conflictProblem(profiles, on('any-unique-key', [{ column: 'bio', value: "'x'" }]))).toBeUndefined();
  });
});

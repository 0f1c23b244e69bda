/** Transaction-control statements the session understands. */
export type TransactionControl =
  | 'set-isolation'
  | 'begin'
  | 'savepoint'
  | 'release-savepoint'
  | 'rollback-to-savepoint'
  | 'commit'
  | 'rollback';

import type { ParameterizedSql } from '../parameterize/index.js';

/** Transaction-control statements the session understands. */
export type TransactionControl =
  | 'set-isolation'
  | 'begin'
  | 'savepoint'
  | 'release-savepoint'
  | 'rollback-to-savepoint'
  | 'commit'
  | 'rollback';

/** The transaction control a statement is, read from its first words; undefined for any other statement. */
export function transactionControlOf(p: ParameterizedSql): TransactionControl | undefined {
  const head = p.key.slice(0, 40).toUpperCase();
  switch (p.verb) {
    case 'BEGIN':
      return 'begin';
    case 'START':
      return head.startsWith('START TRANSACTION') ? 'begin' : undefined;
    case 'COMMIT':
      return 'commit';
    case 'ROLLBACK':
      return /^ROLLBACK\s+(WORK\s+)?TO\b/.test(head) ? 'rollback-to-savepoint' : 'rollback';
    case 'SAVEPOINT':
      return 'savepoint';
    case 'RELEASE':
      return 'release-savepoint';
    case 'SET':
      return /^SET\s+(SESSION\s+)?TRANSACTION\b/.test(head) ? 'set-isolation' : undefined;
    default:
      return undefined;
  }
}

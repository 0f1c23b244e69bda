import type { NodeRole } from './topology.js';

/** Error codes of a connection that failed or was lost, as mysql2 and Node report them. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_SERVER_SHUTDOWN',
  'ER_CON_COUNT_ERROR',
  'ER_CONNECTION_KILLED',
  'POOL_CLOSED',
]);

/**
 * Server errors that say the node, not the statement, is unusable for this client: it rejects the
 * credentials or the account, has no connection left, is shutting down. Another node may well
 * take the same statement, so they count against the node as a lost connection does.
 */
const NODE_ERRNOS: ReadonlyMap<number, string> = new Map([
  [1040, 'ER_CON_COUNT_ERROR'],
  [1044, 'ER_DBACCESS_DENIED_ERROR'],
  [1045, 'ER_ACCESS_DENIED_ERROR'],
  [1053, 'ER_SERVER_SHUTDOWN'],
  [1129, 'ER_HOST_IS_BLOCKED'],
  [1130, 'ER_HOST_NOT_PRIVILEGED'],
  [1203, 'ER_TOO_MANY_USER_CONNECTIONS'],
  [1226, 'ER_USER_LIMIT_REACHED'],
  [1862, 'ER_MUST_CHANGE_PASSWORD_LOGIN'],
  [1927, 'ER_CONNECTION_KILLED'],
  [3118, 'ER_ACCOUNT_HAS_BEEN_LOCKED'],
  [4151, 'ER_ACCOUNT_HAS_BEEN_LOCKED'],
]);
const NODE_CODES = new Set(NODE_ERRNOS.values());

/** `--read-only` refusals: ER_OPTION_PREVENTS_STATEMENT (1290) and MariaDB's ER_READ_ONLY_MODE (1836). */
const READ_ONLY_ERRNOS = new Set([1290, 1836]);

/** The error and the errors it wraps (TypeORM's `driverError`, `cause`), outermost first. */
function* chain(error: unknown): Generator<{ code?: unknown; fatal?: unknown; errno?: unknown; message?: unknown }> {
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 4; depth++) {
    yield e as { code?: unknown; fatal?: unknown; errno?: unknown };
    e = (e as { driverError?: unknown; cause?: unknown }).driverError ?? (e as { cause?: unknown }).cause;
  }
}

/**
 * Whether a statement failed because its node could not be reached or dropped the connection
 * (counted against the node's health, and a read may be retried elsewhere) rather than with an
 * SQL error (the statement's own fault: the same on every node, reported as is). TypeORM's
 * `QueryFailedError` is looked through to its `driverError`.
 */
export function isConnectionError(error: unknown): boolean {
  for (const e of chain(error)) {
    if (typeof e.code === 'string' && CONNECTION_CODES.has(e.code)) return true;
    // A fatal mysql2 error without an SQL errno is a protocol or socket failure.
    if (e.fatal === true && typeof e.errno !== 'number') return true;
  }
  return false;
}

/** A server refused a write because it is read-only (`--read-only`, `SET GLOBAL read_only = 1`). */
export function isReadOnlyRefusal(error: unknown): boolean {
  for (const e of chain(error)) {
    if (typeof e.errno === 'number' && READ_ONLY_ERRNOS.has(e.errno)) return /read.only/i.test(String(e.message ?? '')) || e.errno === 1836;
    if (e.code === 'ER_READ_ONLY_MODE') return true;
  }
  return false;
}

/**
 * Whether a statement's failure is its node's (a failed node: counted against its health, a read
 * retried on another node) rather than the statement's: a connection error, a node-level refusal
 * (credentials, account, database access, connection limits, shutdown), or — on the primary,
 * where writes must be taken — a read-only refusal (the primary was demoted or fenced). A
 * replica's read-only refusal is the router's misroute, not the node's fault.
 */
export function isNodeFailure(error: unknown, role: NodeRole): boolean {
  if (isConnectionError(error)) return true;
  for (const e of chain(error)) {
    if (typeof e.code === 'string' && NODE_CODES.has(e.code)) return true;
    if (typeof e.errno === 'number' && NODE_ERRNOS.has(e.errno)) return true;
  }
  return role === 'primary' && isReadOnlyRefusal(error);
}

/** The error code to name in a message (`ECONNREFUSED`, `ER_ACCESS_DENIED_ERROR` …), if any. */
export function errorCodeOf(error: unknown): string | undefined {
  for (const e of chain(error)) {
    if (typeof e.code === 'string') return e.code;
    if (typeof e.errno === 'number') return NODE_ERRNOS.get(e.errno) ?? `errno ${e.errno}`;
  }
  return undefined;
}

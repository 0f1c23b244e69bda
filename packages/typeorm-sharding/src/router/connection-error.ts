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
 * Whether a statement failed because its node could not be reached or dropped the connection
 * (counted against the node's health, and a read may be retried elsewhere) rather than with an
 * SQL error (the statement's own fault: the same on every node, reported as is). TypeORM's
 * `QueryFailedError` is looked through to its `driverError`.
 */
export function isConnectionError(error: unknown): boolean {
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 4; depth++) {
    const { code, fatal, errno } = e as { code?: unknown; fatal?: unknown; errno?: unknown };
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
    // A fatal mysql2 error without an SQL errno is a protocol or socket failure.
    if (fatal === true && typeof errno !== 'number') return true;
    e = (e as { driverError?: unknown; cause?: unknown }).driverError ?? (e as { cause?: unknown }).cause;
  }
  return false;
}

/** A replica refused a write because it is read-only (`--read-only`): a misroute. */
export function isReadOnlyRefusal(error: unknown): boolean {
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 4; depth++) {
    if ((e as { errno?: unknown }).errno === 1290 || (e as { code?: unknown }).code === 'ER_OPTION_PREVENTS_STATEMENT') return true;
    e = (e as { driverError?: unknown; cause?: unknown }).driverError ?? (e as { cause?: unknown }).cause;
  }
  return false;
}

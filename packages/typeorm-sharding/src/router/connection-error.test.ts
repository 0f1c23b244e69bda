import { describe, expect, it } from 'vitest';
import { errorCodeOf, isConnectionError, isNodeFailure, isReadOnlyRefusal } from './connection-error.js';

const mysql = (code: string, errno: number, message = code) => Object.assign(new Error(message), { code, errno });
/** TypeORM's QueryFailedError shape: the driver's error inside. */
const wrapped = (driverError: Error) => Object.assign(new Error('query failed'), { driverError });

describe('node failures: what counts against a node, and what is the statement’s own fault', () => {
  it.each([
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), 'replica', true],
    ['rejected credentials', mysql('ER_ACCESS_DENIED_ERROR', 1045), 'replica', true],
    ['a database the account may not use', mysql('ER_DBACCESS_DENIED_ERROR', 1044), 'primary', true],
    ['no connection left', mysql('ER_CON_COUNT_ERROR', 1040), 'replica', true],
    ['no connection left for the user', mysql('ER_TOO_MANY_USER_CONNECTIONS', 1203), 'replica', true],
    ['a server shutting down', mysql('ER_SERVER_SHUTDOWN', 1053), 'primary', true],
    ['a locked account, wrapped by TypeORM', wrapped(mysql('ER_ACCOUNT_HAS_BEEN_LOCKED', 4151)), 'replica', true],
    ['a read-only primary', mysql('ER_OPTION_PREVENTS_STATEMENT', 1290, 'The MariaDB server is running with the --read-only option so it cannot execute this statement'), 'primary', true],
    ['a read-only replica (a misroute, not the node’s fault)', mysql('ER_OPTION_PREVENTS_STATEMENT', 1290, 'The MariaDB server is running with the --read-only option so it cannot execute this statement'), 'replica', false],
    ['a missing table', mysql('ER_NO_SUCH_TABLE', 1146), 'replica', false],
    ['a privilege on one table', mysql('ER_TABLEACCESS_DENIED_ERROR', 1142), 'replica', false],
    ['a duplicate key', wrapped(mysql('ER_DUP_ENTRY', 1062)), 'primary', false],
  ] as const)('%s', (_, error, role, expected) => {
    expect(isNodeFailure(error, role)).toBe(expected);
  });

  it('tells connection errors, read-only refusals and codes apart', () => {
    expect(isConnectionError(mysql('ER_ACCESS_DENIED_ERROR', 1045))).toBe(false);
    expect(isReadOnlyRefusal(mysql('ER_OPTION_PREVENTS_STATEMENT', 1290, 'The server is running with the --skip-grant-tables option'))).toBe(false);
    expect(isReadOnlyRefusal(mysql('ER_READ_ONLY_MODE', 1836))).toBe(true);
    expect(errorCodeOf(wrapped(mysql('ER_ACCESS_DENIED_ERROR', 1045)))).toBe('ER_ACCESS_DENIED_ERROR');
    expect(errorCodeOf(Object.assign(new Error('x'), { errno: 1045 }))).toBe('ER_ACCESS_DENIED_ERROR');
  });
});

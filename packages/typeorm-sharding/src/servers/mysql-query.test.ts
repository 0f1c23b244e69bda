import { describe, expect, it } from 'vitest';
import { mysqlQuery } from './mysql-query.js';

describe('mysqlQuery', () => {
  it('is the plain text without options (mysql2 then uses the connection config)', () => {
    expect(mysqlQuery('SELECT 1', {})).toBe('SELECT 1');
    expect(mysqlQuery('SELECT 1', { serverText: false })).toBe('SELECT 1');
  });
  it('reads dates as the server text with serverText, and keeps a timeout', () => {
    expect(mysqlQuery('SELECT 1', { serverText: true })).toEqual({ sql: 'SELECT 1', dateStrings: true });
    expect(mysqlQuery('SELECT 1', { serverText: true, timeout: 50 })).toEqual({ sql: 'SELECT 1', timeout: 50, dateStrings: true });
    expect(mysqlQuery('SELECT 1', { timeout: 50 })).toEqual({ sql: 'SELECT 1', timeout: 50 });
  });
});

import { QueryFailedError } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { ShardQueryError } from '../errors/index.js';
import { isFencedError } from './fence.js';

/** The error mysql2 raises for the trigger's SIGNAL. */
function driverError(message = 'TSH_FENCED version=12 bucket=345'): Error {
  return Object.assign(new Error(message), { code: 'ER_SIGNAL_EXCEPTION', errno: 1644, sqlState: '45000', sqlMessage: message });
}

describe('isFencedError', () => {
  it("recognises the driver's error, TypeORM's QueryFailedError and the plugin's ShardQueryError", () => {
    const raw = driverError();
    expect(isFencedError(raw)).toEqual({ version: 12, bucket: 345 });
    const failed = new QueryFailedError('INSERT …', [], raw);
    expect(isFencedError(failed)).toEqual({ version: 12, bucket: 345 });
    const wrapped = new ShardQueryError(failed, { shard: 's0', physicalQuery: 'INSERT …', physicalParameters: [] });
    expect(isFencedError(wrapped)).toEqual({ version: 12, bucket: 345 });
    expect(isFencedError(new Error('outer', { cause: wrapped }))).toEqual({ version: 12, bucket: 345 });
    expect(isFencedError(new AggregateError([new Error('x'), raw]))).toEqual({ version: 12, bucket: 345 });
  });

  it('answers undefined for other signals, other errors and non-errors', () => {
    expect(isFencedError(driverError('some user trigger said no'))).toBeUndefined();
    expect(isFencedError(Object.assign(new Error('TSH_FENCED version=1 bucket=2'), { errno: 1062, sqlState: '23000' }))).toBeUndefined();
    expect(isFencedError(new Error('TSH_FENCED version=1 bucket=2'))).toBeUndefined();
    expect(isFencedError(undefined)).toBeUndefined();
    expect(isFencedError('TSH_FENCED version=1 bucket=2')).toBeUndefined();
    const loop: { cause?: unknown } = {};
    loop.cause = loop;
    expect(isFencedError(loop)).toBeUndefined();
  });
});

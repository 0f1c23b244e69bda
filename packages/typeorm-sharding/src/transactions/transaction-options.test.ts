import { describe, expect, it } from 'vitest';
import { ShardingConfigError } from '../errors/index.js';
import { resolveTransactionOptions } from './transaction-options.js';

describe('resolveTransactionOptions', () => {
  it('applies the defaults', () => {
    expect(resolveTransactionOptions()).toEqual({ crossServer: 'atomic', xidPrefix: undefined, logTable: 'tsh_xa_log', resolveIntervalMs: 5000, resolveAfterMs: 30_000, onStep: undefined });
  });

  it.each([
    [{ crossServer: 'maybe' }, /crossServer must be 'atomic' or 'sequential'/],
    [{ xidPrefix: 'has.dot' }, /xidPrefix must be 1 to 24 letters/],
    [{ xidPrefix: 'x'.repeat(25) }, /xidPrefix must be 1 to 24 letters/],
    [{ logTable: 'bad-name' }, /logTable must be a table name/],
    [{ resolveIntervalMs: 0 }, /resolveIntervalMs must be false or a number/],
    [{ resolveAfterMs: -1 }, /resolveAfterMs must be a number/],
    [{ onStep: 'log' }, /onStep must be a function/],
  ])('refuses %j', (options, message) => {
    expect(() => resolveTransactionOptions(options as never)).toThrow(ShardingConfigError);
    expect(() => resolveTransactionOptions(options as never)).toThrow(message);
  });
});

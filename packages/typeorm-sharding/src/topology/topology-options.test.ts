import { describe, expect, it } from 'vitest';
import { ShardingConfigError } from '../errors/index.js';
import { resolveTopologyOptions } from './topology-options.js';

describe('sharding.topology options', () => {
  it('applies the defaults', () => {
    expect(resolveTopologyOptions(undefined, 'mysql')).toBeUndefined();
    expect(resolveTopologyOptions({}, 'mysql')).toEqual({ dialect: 'mysql', server: undefined, database: 'typeorm_sharding_meta', refreshMs: 1000, fenceRetryMs: 5000 });
    expect(resolveTopologyOptions({ file: 't.db', refreshMs: 10, fenceRetryMs: 0 }, 'sqlite')).toEqual({ dialect: 'sqlite', file: 't.db', refreshMs: 10, fenceRetryMs: 0 });
  });

  it.each([
    ['mysql', { file: 'x.db' }, /unknown key `file`/],
    ['sqlite', {}, /file must name the SQLite file/],
    ['sqlite', { file: 'x', server: 'a' }, /unknown key `server`/],
    ['mysql', { refreshMs: 0 }, /refreshMs must be a positive integer/],
    ['mysql', { fenceRetryMs: -1 }, /fenceRetryMs must be an integer ≥ 0/],
    ['mysql', { server: '' }, /server must be a non-empty string/],
    ['mysql', 'meta', /must be an object/],
  ] as const)('%s refuses %j', (dialect, options, message) => {
    expect(() => resolveTopologyOptions(options, dialect)).toThrow(ShardingConfigError);
    expect(() => resolveTopologyOptions(options, dialect)).toThrow(message);
  });
});

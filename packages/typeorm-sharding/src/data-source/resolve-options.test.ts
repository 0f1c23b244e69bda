import { describe, expect, it } from 'vitest';
import { resolveShardingOptions } from './resolve-options.js';

describe('resolveShardingOptions: coalesced statement width', () => {
  it('keeps 16 shards per statement up to 64 shards per concurrency slot on a server', () => {
    expect(resolveShardingOptions({ concurrency: 2 }, 64).coalesce).toEqual({ maxBranches: 16 });
    expect(resolveShardingOptions({ concurrency: 2 }, 128).coalesce).toEqual({ maxBranches: 16 });
  });

  it('widens it beyond, to about four statements per concurrency slot', () => {
    expect(resolveShardingOptions({ concurrency: 2 }, 1024).coalesce).toEqual({ maxBranches: 128 });
    expect(resolveShardingOptions({ concurrency: 4 }, 1000).coalesce).toEqual({ maxBranches: 63 });
  });

  it('leaves an explicit maxBranches and a disabled coalescing as they are', () => {
    expect(resolveShardingOptions({ concurrency: 2, coalesce: { maxBranches: 8 } }, 1024).coalesce).toEqual({ maxBranches: 8 });
    expect(resolveShardingOptions({ concurrency: 2, coalesce: false }, 1024).coalesce).toBeUndefined();
  });
});

describe('resolveShardingOptions: remembered owners', () => {
  it('remembers 10,000 owners by default, none with 0, as many as asked otherwise', () => {
    expect(resolveShardingOptions({}).rememberedOwners).toBe(10_000);
    expect(resolveShardingOptions({ rememberedOwners: 0 }).rememberedOwners).toBe(0);
    expect(resolveShardingOptions({ rememberedOwners: 50 }).rememberedOwners).toBe(50);
  });

  it.each([-1, 1.5, '100', null])('refuses %j with ShardingConfigError naming the option', (value) => {
    expect(() => resolveShardingOptions({ rememberedOwners: value as never })).toThrow(/sharding\.rememberedOwners must be a positive integer/);
  });
});

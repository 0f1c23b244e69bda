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

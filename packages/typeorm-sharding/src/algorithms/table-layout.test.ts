import { describe, expect, it } from 'vitest';
import { ShardingConfigError } from '../errors/index.js';
import { createAlgorithm } from './create-algorithm.js';
import { createTableLayout } from './table-layout.js';
import { TABLE_GOLDEN_VECTORS } from './table-golden-vectors.fixture.js';

// The expected values live in table-golden-vectors.fixture.ts. Changing them moves users'
// rows between tables: never update them to make a test pass.

const shards = ['s0', 's1', 's2', 's3'];

describe('table layouts', () => {
  describe('golden vectors (pinned key → table mapping)', () => {
    it.each(TABLE_GOLDEN_VECTORS)('$algorithm $kind key $input', (v) => {
      const algorithm = createAlgorithm(v.algorithm, shards, v.kind);
      const four = createTableLayout(4, 'orders', 'Order', algorithm);
      const other = createTableLayout(3, 'orders', 'Order', algorithm);
      expect(algorithm.shardIndexOf(v.input)).toBe(v.shardOf4);
      expect(four.tableIndexOf(v.input)).toBe(v.tableOf4);
      expect(other.tableIndexOf(v.input)).toBe(v.tableOfOther);
    });
  });

  it('keeps a hash bucket in one table index whatever shard owns it (moving buckets moves rows table to table)', () => {
    const moved = createAlgorithm({ type: 'hash', bucketMap: [{ from: 0, to: 511, shard: 's3' }, { from: 512, to: 1023, shard: 's0' }] }, shards, 'integer');
    const usual = createAlgorithm('hash', shards, 'integer');
    for (let key = 0; key < 500; key++) {
      expect(createTableLayout(4, 'orders', 'Order', moved).tableIndexOf(key)).toBe(createTableLayout(4, 'orders', 'Order', usual).tableIndexOf(key));
    }
  });

  it('under mod, every (shard, table) gets every shards × tables-th key', () => {
    const algorithm = createAlgorithm('mod', shards, 'integer');
    const layout = createTableLayout(3, 'orders', 'Order', algorithm);
    const seen = new Map<string, number[]>();
    for (let key = -24; key < 24; key++) {
      const place = `${algorithm.shardIndexOf(key)}/${layout.tableIndexOf(key)}`;
      seen.set(place, [...(seen.get(place) ?? []), key]);
    }
    expect(seen.size).toBe(12);
    for (const keys of seen.values()) expect(keys.map((k, i) => (i === 0 ? 12 : k - keys[i - 1]!))).toEqual([12, 12, 12, 12]);
  });

  it('names the tables by the pattern, keeping the spelling of the table as written', () => {
    const algorithm = createAlgorithm('hash', shards, 'integer');
    expect(createTableLayout(4, 'orders', 'Order', algorithm).physicalName('Orders', 3)).toBe('Orders_3');
    expect(createTableLayout({ count: 8, name: 't_order_{index}' }, 'orders', 'Order', algorithm).physicalName('orders', 7)).toBe('t_order_7');
    expect(createTableLayout({ count: 2, name: '{table}_part{index}' }, 'orders', 'Order', algorithm).physicalName('orders', 1)).toBe('orders_part1');
    expect(createTableLayout(4, 'orders', 'Order', algorithm).rule).toBe('bucket % 4');
    expect(createTableLayout(4, 'orders', 'Order', createAlgorithm('mod', shards, 'integer')).rule).toBe('floor(key / 4) % 4');
  });

  it.each([
    ['a count of 0', 0, /whole number of tables from 1 to 1024/],
    ['a fractional count', 2.5, /whole number of tables/],
    ['too many tables', 1025, /from 1 to 1024/],
    ['a pattern without {index}', { count: 2, name: 'orders_x' }, /must contain \{index\}/],
    ['a pattern making a name that needs quotes', { count: 2, name: 'orders-{index}' }, /plain names/],
  ] as const)('refuses %s with a ShardingConfigError naming the entity', (_label, option, message) => {
    const algorithm = createAlgorithm('hash', shards, 'integer');
    expect(() => createTableLayout(option, 'orders', 'Order', algorithm)).toThrow(ShardingConfigError);
    expect(() => createTableLayout(option, 'orders', 'Order', algorithm)).toThrow(message);
    expect(() => createTableLayout(option, 'orders', 'Order', algorithm)).toThrow(/Entity Order/);
  });

  it("refuses a function algorithm: it names shards only", () => {
    const algorithm = createAlgorithm((key: unknown, n: number) => Number(key) % n, shards, 'integer');
    expect(() => createTableLayout(4, 'orders', 'Order', algorithm)).toThrow(/needs the 'hash' or 'mod' algorithm/);
  });
});

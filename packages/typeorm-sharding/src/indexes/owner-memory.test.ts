import { describe, expect, it } from 'vitest';
import type { GlobalIndex } from '../rules/index.js';
import type { LookupSite } from './lookup-routing.js';
import { OwnerMemory } from './owner-memory.js';

const EMAIL = { unique: true, table: 'users', columns: ['email'], ownerColumn: 'id', lookupTable: 'users__gidx_email' } as unknown as GlobalIndex;
const SKU = { unique: true, table: 'items', columns: ['shopId', 'sku'], ownerColumn: 'id', lookupTable: 'items__gidx_shopId_sku' } as unknown as GlobalIndex;
const site = (index: GlobalIndex, rememberable = true): LookupSite => ({ index, refs: index.columns.map((_, i) => [{ kind: 'slot', slot: i }]), rememberable });

describe('OwnerMemory', () => {
  it('remembers the owner of a value whose lookup found one entry of its type, and forgets it', () => {
    const memory = new OwnerMemory(10);
    const key = memory.keyOf(site(EMAIL), [['a@x']])!;
    expect(memory.ownerOf(key)).toBeUndefined();
    memory.remember(key, site(EMAIL), [['a@x']], [{ email: 'a@x', id: 7 }]);
    expect(memory.ownerOf(key)).toBe(7);
    memory.forget(key);
    expect(memory.ownerOf(key)).toBeUndefined();
  });

  it('keeps values of one column apart from those of another index and from other types', () => {
    const memory = new OwnerMemory(10);
    const keys = [memory.keyOf(site(EMAIL), [['5']]), memory.keyOf(site(EMAIL), [[5]]), memory.keyOf(site(SKU), [[5], ['5']]), memory.keyOf(site(SKU), [['5'], [5]])];
    expect(new Set(keys).size).toBe(4);
    // A number and a bigint compare alike.
    expect(memory.keyOf(site(EMAIL), [[5n]])).toBe(keys[1]);
  });

  it.each([
    ['not rememberable', site(EMAIL, false), [['a@x']]],
    ['several values', site(EMAIL), [['a@x', 'b@x']]],
    ['a Date', site(EMAIL), [[new Date(0)]]],
    ['a Buffer', site(EMAIL), [[Buffer.from('a')]]],
    ['a boolean', site(EMAIL), [[true]]],
  ])('has no key for %s', (_, s, values) => {
    expect(new OwnerMemory(10).keyOf(s, values)).toBeUndefined();
  });

  it('has no key when it holds nothing (size 0)', () => {
    expect(new OwnerMemory(0).keyOf(site(EMAIL), [['a@x']])).toBeUndefined();
  });

  it.each([
    ['no entry', []],
    ['two entries (a _ci column found two spellings)', [{ email: 'A@x', id: 1 }, { email: 'a@x', id: 2 }]],
    ['an entry of another type (a string column asked a number)', [{ email: '5', id: 1 }]],
    ['an entry without owner', [{ email: 5, id: null }]],
  ])('remembers nothing for %s', (_, rows) => {
    const memory = new OwnerMemory(10);
    const key = memory.keyOf(site(EMAIL), [[5]])!;
    memory.remember(key, site(EMAIL), [[5]], rows);
    expect(memory.ownerOf(key)).toBeUndefined();
  });

  it('drops the least recently used owner first', () => {
    const memory = new OwnerMemory(2);
    const keyOf = (email: string) => memory.keyOf(site(EMAIL), [[email]])!;
    memory.remember(keyOf('a'), site(EMAIL), [['a']], [{ email: 'a', id: 1 }]);
    memory.remember(keyOf('b'), site(EMAIL), [['b']], [{ email: 'b', id: 2 }]);
    expect(memory.ownerOf(keyOf('a'))).toBe(1); // a is now the most recent
    memory.remember(keyOf('c'), site(EMAIL), [['c']], [{ email: 'c', id: 3 }]);
    expect([memory.ownerOf(keyOf('a')), memory.ownerOf(keyOf('b')), memory.ownerOf(keyOf('c'))]).toEqual([1, undefined, 3]);
    expect(memory.size).toBe(2);
  });
});

import { describe, expect, it } from 'vitest';
import { ParameterCountError } from './parameterize-error.js';
import { ParameterizeCache } from './text-cache.js';

describe('ParameterizeCache', () => {
  const sql = 'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`id` IN (?, ?, 7) AND `o`.`buyerId` = ? LIMIT 10';

  it('re-binds the `?` values of a text it has seen, keeping inline literals', () => {
    const cache = new ParameterizeCache('mysql', 4);
    const first = cache.parameterize(sql, [1, 2, 3]);
    const second = cache.parameterize(sql, [4, 5, 6]);
    expect(second.key).toBe(first.key);
    expect(second.parameters).toEqual([4, 5, 6]);
    expect(second.inLists[0]!.items.map((i) => i.value)).toEqual([4, 5, '7']);
    expect(second.slots.map((s) => s.value)).toEqual([6, '10']);
    // The first result is not changed by the second binding.
    expect(first.inLists[0]!.items.map((i) => i.value)).toEqual([1, 2, '7']);
    // Lazily computed fields of the shape stay reachable.
    expect(second.parserSql).toBe(first.parserSql);
  });

  it('checks the parameter count on a hit too', () => {
    const cache = new ParameterizeCache('mysql', 4);
    cache.parameterize(sql, [1, 2, 3]);
    expect(() => cache.parameterize(sql, [1, 2])).toThrow(ParameterCountError);
  });

  it('keeps working across generation flips and for long texts', () => {
    const cache = new ParameterizeCache('sqlite', 2);
    for (let i = 0; i < 10; i++) expect(cache.parameterize(`SELECT * FROM "t" WHERE "id" = ${i}`, []).slots[0]!.value).toBe(String(i));
    const long = `SELECT * FROM "t" WHERE "id" IN (${Array.from({ length: 1000 }, () => '?').join(', ')})`;
    const values = Array.from({ length: 1000 }, (_, i) => i);
    expect(cache.parameterize(long, values).inLists[0]!.items).toHaveLength(1000);
    expect(cache.parameterize(long, values.map((v) => v + 1)).inLists[0]!.items[0]!.value).toBe(1);
  });
});

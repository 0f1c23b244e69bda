import { describe, expect, it } from 'vitest';
import { EXIT, parseRanges, runReshard } from './reshard-command.js';

const capture = () => {
  let out = '';
  let err = '';
  return { io: { out: (t: string) => (out += t), err: (t: string) => (err += t), tty: false }, text: () => ({ out, err }) };
};

describe('typeorm-sharding reshard', () => {
  it('parses bucket ranges and refuses malformed ones', () => {
    expect(parseRanges('0-127,300,400-401')).toEqual([
      { from: 0, to: 127 },
      { from: 300, to: 300 },
      { from: 400, to: 401 },
    ]);
    expect(() => parseRanges('0-x')).toThrow(/not a bucket range/);
  });

  it('a usage error exits 2, a missing data source file exits 1 with a clear message', async () => {
    const a = capture();
    expect(await runReshard(['reshard', 'start'], a.io)).toBe(EXIT.usage);
    expect(a.text().err).toMatch(/required/);
    const b = capture();
    expect(await runReshard(['reshard', 'status', '-d', '/nonexistent/ds.mjs'], b.io)).toBe(EXIT.refused);
    expect(b.text().err).toMatch(/does not exist/);
    const c = capture();
    expect(await runReshard(['reshard', 'switch', 'x', '-d', 'f'], c.io)).toBe(EXIT.usage);
    expect(c.text().err).toMatch(/non-negative integer/);
  });
});

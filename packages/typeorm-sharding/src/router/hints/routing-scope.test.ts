import { describe, expect, it } from 'vitest';
import { hintNames } from './hint.js';
import { currentRoutingScope, scopeHints, withRouting } from './routing-scope.js';

describe('withRouting', () => {
  it('gives its hints to code it awaits, nests, and ends with the callback', async () => {
    expect(currentRoutingScope()).toBeUndefined();
    const seen: string[][] = [];
    await withRouting({ consistentRead: true }, async () => {
      await Promise.resolve();
      seen.push(hintNames(scopeHints()));
      const outer = currentRoutingScope()!.session;
      await withRouting({ sticky: true }, async () => {
        await new Promise((r) => setTimeout(r, 1));
        seen.push(hintNames(scopeHints()));
        expect(currentRoutingScope()!.session).toBe(outer);
      });
      seen.push(hintNames(scopeHints()));
    });
    expect(seen).toEqual([['CONSISTENT_READ'], ['CONSISTENT_READ', 'ROUTE_STICKY'], ['CONSISTENT_READ']]);
    expect(currentRoutingScope()).toBeUndefined();
  });

  it('keeps concurrent scopes apart', async () => {
    const a = withRouting({ forceMaster: true }, async () => {
      await new Promise((r) => setTimeout(r, 5));
      return hintNames(scopeHints());
    });
    const b = withRouting({ forceSlave: true }, async () => {
      await new Promise((r) => setTimeout(r, 1));
      return hintNames(scopeHints());
    });
    expect(await Promise.all([a, b])).toEqual([['FORCE_MASTER'], ['FORCE_SLAVE']]);
  });

  it('ends the scope when the callback throws, and works for synchronous callbacks', () => {
    expect(() =>
      withRouting({ forceMaster: true }, () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(currentRoutingScope()).toBeUndefined();
    expect(withRouting({ forceSlave: true }, () => scopeHints().forceSlave)).toBe(true);
  });

  it('refuses an unknown option rather than ignoring it', () => {
    expect(() => withRouting({ forceMastr: true } as never, () => 1)).toThrow(TypeError);
    expect(() => withRouting({ forceMastr: true } as never, () => 1)).toThrow(/unknown option forceMastr/);
  });
});

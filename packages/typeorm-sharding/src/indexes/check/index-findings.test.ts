import { describe, expect, it } from 'vitest';
import type { GlobalIndex } from '../../rules/index.js';
import { indexFindings } from './index-findings.js';

const index = (unique: boolean): GlobalIndex =>
  ({ unique, table: 'users', owner: {} as never, label: 'unique key', indexName: 'UQ', columns: ['email'], ownerColumn: 'id', lookupTable: 'users__gidx_email' }) as GlobalIndex;

const kinds = (findings: ReturnType<typeof indexFindings>) => findings.map((f) => `${f.kind} ${JSON.stringify(f.values)}`).sort();

describe('indexFindings (unique)', () => {
  it('finds nothing when every row has its entry', () => {
    expect(indexFindings(index(true), [{ values: ['a'], owner: 1 }, { values: ['b'], owner: '2' }], [{ values: ['a'], owner: '1' }, { values: ['b'], owner: 2 }])).toEqual([]);
  });

  it('reports a dangling entry, a missing one, and an entry pointing at the wrong owner as both', () => {
    const owners = [{ values: ['a'], owner: 1 }, { values: ['c'], owner: 3 }];
    const entries = [{ values: ['a'], owner: 1 }, { values: ['b'], owner: 2 }, { values: ['c'], owner: 9 }];
    expect(kinds(indexFindings(index(true), owners, entries))).toEqual(['dangling ["b"]', 'dangling ["c"]', 'missing ["c"]']);
  });

  it('reports a value owned twice once and nothing else about it (no winner picked)', () => {
    const findings = indexFindings(index(true), [{ values: ['a'], owner: 1 }, { values: ['a'], owner: 2 }], [{ values: ['a'], owner: 1 }]);
    expect(findings).toEqual([{ kind: 'owned-twice', lookupTable: 'users__gidx_email', values: ['a'], owners: [1, 2] }]);
  });

  it('does not index NULL', () => {
    expect(indexFindings(index(true), [{ values: [null], owner: 1 }, { values: [null], owner: 2 }], [])).toEqual([]);
  });
});

describe('indexFindings (lookup index)', () => {
  it('counts rows per value and owner: miscounted, missing and dangling entries; many owners per value are fine', () => {
    const owners = [{ values: [7], owner: 1 }, { values: [7], owner: 1 }, { values: [7], owner: 2 }, { values: [8], owner: 3 }];
    const entries = [{ values: [7], owner: 1, refs: 1 }, { values: [7], owner: 2, refs: 1 }, { values: [9], owner: 4, refs: 2 }];
    expect(kinds(indexFindings(index(false), owners, entries))).toEqual(['dangling [9]', 'miscounted [7]', 'missing [8]']);
  });

  it('compares text as the column\'s collation does: two spellings of one value on one key are one entry of 2 rows', () => {
    const owners = [{ values: ['Bob'], owner: 1 }, { values: ['bob'], owner: 1 }];
    const entries = [{ values: ['Bob'], owner: 1, refs: 2 }];
    expect(indexFindings(index(false), owners, entries, [(t) => t.toLowerCase()])).toEqual([]);
    expect(kinds(indexFindings(index(false), owners, entries))).toEqual(['miscounted ["Bob"]', 'missing ["bob"]']);
  });
});

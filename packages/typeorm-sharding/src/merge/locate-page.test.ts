import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pageWindowOf } from '../plan/select/page-window.js';
import { buildMerge } from './build-merge.js';
import { collectRows } from './collect-rows.js';
import { locatePage, type WindowShape } from './locate-page.js';
import type { OrderedMergeSpec } from './merge-spec.js';
import { createRowComparator } from './row-comparator.js';
import type { Row } from './row.js';

const ORDER: OrderedMergeSpec = { kind: 'ordered', orderBy: [{ column: 'k', direction: 'ASC', type: 'numeric' }] };
const compare = createRowComparator(ORDER.orderBy);

/** The page the plain path gives: every input's first offset + count rows, merged (ties in input order), then cut. */
function plainPage(inputs: readonly Row[][], offset: number, count: number): Row[] {
  const all = inputs.flatMap((rows) => rows.slice(0, offset + count));
  return all.sort(compare).slice(offset, offset + count);
}

/** What the windowed path gives, or undefined when the windows cannot prove the page. */
async function windowedPage(inputs: readonly Row[][], shape: WindowShape): Promise<Row[] | undefined> {
  const windows = inputs.map((rows) => rows.slice(shape.start, shape.start + shape.rows));
  const located = locatePage(windows, shape, compare);
  if (located.kind === 'unproven') return undefined;
  return collectRows(buildMerge({ ...ORDER, limit: { offset: located.skip, count: shape.count } }, located.inputs.map(async function* (rows) { yield* rows; })));
}

/** Inputs of sorted rows `{ k, id }` (ids unique across inputs); keys from `keys`. */
function inputsOf(keyLists: readonly number[][]): Row[][] {
  let id = 0;
  return keyLists.map((keys) => [...keys].sort((a, b) => a - b).map((k) => ({ k, id: id++ })));
}

function shapeOf(start: number, rows: number, boundary: number, offset: number, count: number): WindowShape {
  return { start, rows, boundary, offset, count };
}

describe('locatePage', () => {
  it('cuts the page from evenly interleaved windows', async () => {
    // 4 inputs, input i holds keys i, i+4, i+8, …: the page at offset 40 is keys 40..49.
    const inputs = inputsOf(Array.from({ length: 4 }, (_, i) => Array.from({ length: 50 }, (_, j) => i + 4 * j)));
    const shape = shapeOf(7, 8, 10, 40, 10);
    expect((await windowedPage(inputs, shape))!.map((r) => r['k'])).toEqual([40, 41, 42, 43, 44, 45, 46, 47, 48, 49]);
  });

  it("says so when an input's window begins after the boundary (skew)", () => {
    // Input 0 holds every small key: input 1's window starts far after input 0's row at position w.
    const inputs = inputsOf([Array.from({ length: 100 }, (_, j) => j), Array.from({ length: 100 }, (_, j) => 1000 + j)]);
    const shape = shapeOf(20, 40, 25, 50, 10);
    const windows = inputs.map((rows) => rows.slice(20, 60));
    expect(locatePage(windows, shape, compare)).toEqual({ kind: 'unproven', reason: "an input's window begins after the boundary" });
  });

  it('says so when the windows end before the page does', () => {
    // From row 0 (nothing is before the window), but input 0's window ends long before the page.
    const inputs = inputsOf([Array.from({ length: 100 }, (_, j) => j), Array.from({ length: 100 }, (_, j) => 1000 + j)]);
    const windows = inputs.map((rows) => rows.slice(0, 30));
    expect(locatePage(windows, shapeOf(0, 30, 25, 50, 10), compare)).toEqual({ kind: 'unproven', reason: 'the windows end before the page does' });
  });

  it('refuses a window that begins on a tie with the boundary: the rows before it may tie too', async () => {
    // Every key ties: the plain path's page at offset 10 is input 1's first four rows (ids 10..13).
    const inputs = inputsOf([Array(10).fill(5), Array(10).fill(5)]);
    const shape = shapeOf(3, 8, 5, 10, 4);
    expect(await windowedPage(inputs, shape)).toBeUndefined();
    expect(plainPage(inputs, 10, 4).map((r) => r['id'])).toEqual([10, 11, 12, 13]);
  });

  it('refuses rows that are not in the merge order rather than cut a wrong page', () => {
    const windows = [[{ k: 2 }, { k: 1 }], [{ k: 1 }, { k: 3 }]];
    expect(locatePage(windows, shapeOf(0, 2, 1, 2, 1), compare).kind).toBe('unproven');
  });

  it('gives an empty page when no input reaches the boundary from row 0', () => {
    const windows = [[{ k: 1 }], [{ k: 2 }]];
    expect(locatePage(windows, shapeOf(0, 10, 5, 10, 3), compare)).toEqual({ kind: 'page', inputs: [], skip: 0 });
  });

  it('gives exactly the plain path\'s page, ties included, whenever it gives one', async () => {
    let proven = 0;
    await fc.assert(
      fc.asyncProperty(
        // Few distinct keys, so that ties straddle window starts, boundaries and cuts.
        fc.integer({ min: 1, max: 30 }).chain((keys) => fc.array(fc.array(fc.integer({ min: 0, max: keys }), { maxLength: 60 }), { minLength: 2, maxLength: 6 })),
        fc.integer({ min: 0, max: 200 }),
        fc.integer({ min: 1, max: 15 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 40 }),
        async (keyLists, offset, count, before, after) => {
          const inputs = inputsOf(keyLists);
          const boundary = Math.floor(offset / inputs.length);
          const start = Math.max(0, boundary - before);
          const shape = shapeOf(start, boundary - start + count + after, boundary, offset, count);
          const page = await windowedPage(inputs, shape);
          if (page === undefined) return;
          proven++;
          expect(page).toEqual(plainPage(inputs, offset, count));
        },
      ),
      { numRuns: 2000 },
    );
    expect(proven).toBeGreaterThan(500);
  });

  it('proves nearly every page of randomly interleaved inputs with the margin pageWindowOf chooses', async () => {
    let proven = 0;
    for (let trial = 0; trial < 40; trial++) {
      const random = mulberry32(trial);
      const inputs = inputsOf(Array.from({ length: 8 }, () => Array.from({ length: 800 }, () => Math.floor(random() * 1e6))));
      const window = pageWindowOf({ offset: 3000n, count: 20n, pushed: true }, true, ORDER, inputs.length)!;
      const page = await windowedPage(inputs, window);
      if (page === undefined) continue;
      proven++;
      expect(page).toEqual(plainPage(inputs, 3000, 20));
    }
    expect(proven).toBeGreaterThanOrEqual(38);
  });
});

function mulberry32(seed: number): () => number {
  let a = seed + 0x6d2b79f5;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

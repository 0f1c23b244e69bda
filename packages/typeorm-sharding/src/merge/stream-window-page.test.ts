import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildMerge } from './build-merge.js';
import { collectRows } from './collect-rows.js';
import { locatePage, type WindowShape } from './locate-page.js';
import type { OrderedMergeSpec } from './merge-spec.js';
import { createRowComparator } from './row-comparator.js';
import type { Row } from './row.js';
import { streamWindowPage } from './stream-window-page.js';

const ORDER: OrderedMergeSpec = { kind: 'ordered', orderBy: [{ column: 'k', direction: 'ASC', type: 'numeric' }] };
const compare = createRowComparator(ORDER.orderBy);

function inputsOf(keyLists: readonly number[][]): Row[][] {
  let id = 0;
  return keyLists.map((keys) => [...keys].sort((a, b) => a - b).map((k) => ({ k, id: id++ })));
}

/** The plain path's page: every input merged (ties in input order), then cut. */
function plainPage(inputs: readonly Row[][], offset: number, count: number): Row[] {
  return inputs.flat().sort(compare).slice(offset, offset + count);
}

const windowsOf = (inputs: readonly Row[][], shape: WindowShape) => inputs.map((rows) => rows.slice(shape.start, shape.start + shape.rows));

/** Streams over arrays that count the rows read from them and whether they were closed. */
function counted(windows: readonly Row[][]): { streams: AsyncIterable<Row>[]; read: number[]; closed: boolean[] } {
  const read = windows.map(() => 0);
  const closed = windows.map(() => false);
  const streams = windows.map((rows, i) => ({
    [Symbol.asyncIterator]() {
      let at = 0;
      return {
        next: async () => (at < rows.length ? (read[i]!++, { done: false as const, value: rows[at++]! }) : { done: true as const, value: undefined }),
        return: async () => ((closed[i] = true), { done: true as const, value: undefined }),
      };
    },
  }));
  return { streams, read, closed };
}

async function streamed(inputs: readonly Row[][], shape: WindowShape): Promise<Row[] | undefined> {
  const result = await streamWindowPage(counted(windowsOf(inputs, shape)).streams, shape, compare);
  return result.kind === 'page' ? [...result.rows] : undefined;
}

async function buffered(inputs: readonly Row[][], shape: WindowShape): Promise<Row[] | undefined> {
  const located = locatePage(windowsOf(inputs, shape), shape, compare);
  if (located.kind === 'unproven') return undefined;
  return collectRows(buildMerge({ ...ORDER, limit: { offset: located.skip, count: shape.count } }, located.inputs.map(async function* (rows) { yield* rows; })));
}

describe('streamWindowPage', () => {
  it('cuts the page of evenly interleaved windows, reading each window only up to the page', async () => {
    const inputs = inputsOf([0, 1, 2, 3].map((i) => Array.from({ length: 100 }, (_, j) => i + 4 * j)));
    const shape: WindowShape = { start: 5, rows: 20, boundary: 10, offset: 40, count: 10 };
    const { streams, read, closed } = counted(windowsOf(inputs, shape));
    const page = await streamWindowPage(streams, shape, compare);
    expect(page).toEqual({ kind: 'page', rows: plainPage(inputs, 40, 10) });
    expect(page.kind === 'page' && page.rows.map((r) => r['k'])).toEqual([40, 41, 42, 43, 44, 45, 46, 47, 48, 49]);
    // Stopped at the page: no window read to its end, every one closed.
    expect(read.every((n) => n < shape.rows)).toBe(true);
    expect(closed).toEqual([true, true, true, true]);
  });

  it('refuses a page that begins before every window has begun, a full window that ends first, rows out of order, and an input without a window', async () => {
    const even = inputsOf([0, 1].map((i) => Array.from({ length: 50 }, (_, j) => i + 2 * j)));
    const short: WindowShape = { start: 5, rows: 8, boundary: 10, offset: 20, count: 10 };
    expect(await streamWindowPage(counted(windowsOf(even, short)).streams, short, compare)).toMatchObject({ kind: 'unproven', reason: 'the windows end before the page does' });
    const early: WindowShape = { start: 10, rows: 20, boundary: 10, offset: 20, count: 5 };
    expect(await streamWindowPage(counted(windowsOf(even, early)).streams, early, compare)).toMatchObject({ kind: 'unproven', reason: "the page begins before an input's window does" });
    // Input 1 holds the low keys: its window begins after the page does.
    const skewed = inputsOf([Array.from({ length: 50 }, (_, j) => 100 + j), Array.from({ length: 50 }, (_, j) => j)]);
    expect(await streamWindowPage(counted(windowsOf(skewed, { start: 5, rows: 20, boundary: 10, offset: 20, count: 5 })).streams, { start: 5, rows: 20, boundary: 10, offset: 20, count: 5 }, compare)).toMatchObject({ kind: 'unproven' });
    const unsorted = [[{ k: 1, id: 0 }, { k: 0, id: 1 }], [{ k: 0, id: 2 }, { k: 3, id: 3 }]];
    expect(await streamWindowPage(counted(unsorted).streams, { start: 0, rows: 2, boundary: 1, offset: 2, count: 2 }, compare)).toMatchObject({ kind: 'unproven', reason: "an input's rows are not in the merge's order" });
    expect(await streamWindowPage(counted([[], [{ k: 1, id: 0 }]]).streams, { start: 3, rows: 4, boundary: 4, offset: 8, count: 1 }, compare)).toMatchObject({ kind: 'unproven' });
  });

  it('gives a short page when every input was read to its end', async () => {
    const inputs = inputsOf([[1, 2, 3], [2, 5]]);
    const shape: WindowShape = { start: 0, rows: 10, boundary: 1, offset: 3, count: 10 };
    expect(await streamed(inputs, shape)).toEqual(plainPage(inputs, 3, 10));
  });

  it("gives exactly the plain path's page whenever it gives one, and proves every page locatePage proves", async () => {
    let proven = 0;
    let beyond = 0;
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
          const shape: WindowShape = { start, rows: boundary - start + count + after, boundary, offset, count };
          const [fromStream, fromBuffer] = [await streamed(inputs, shape), await buffered(inputs, shape)];
          if (fromBuffer !== undefined) expect(fromStream).toBeDefined();
          if (fromStream === undefined) return;
          proven++;
          if (fromBuffer === undefined) beyond++;
          expect(fromStream).toEqual(plainPage(inputs, offset, count));
        },
      ),
      { numRuns: 3000 },
    );
    expect(proven).toBeGreaterThan(700);
    expect(beyond).toBeGreaterThan(0);
  });
});

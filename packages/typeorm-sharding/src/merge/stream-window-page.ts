/**
 * The page of a windowed read (see `locate-page.ts`) cut while the windows stream in, holding
 * one row per input and the page's rows instead of every row the windows send.
 *
 * The inputs' windows are merged as the plain path merges whole inputs (ties in input order).
 * Every input holds exactly `start` rows before its window, and they all come at or before its
 * window's first row; so once the merge is strictly past the last of the windows' first rows
 * (`F`), a merged row's global position is `inputs × start` plus the merged rows before it. The
 * page is the rows from merged position `offset − inputs × start` on, provided the first of them
 * is strictly after `F`. A full window's unsent rows come at or after its last row: when a full
 * window has been merged to its end, no later row may be handed on (a lower input's ties with it
 * came before it), so the page must be complete by then. An input whose rows are out of the
 * merge's order, or with no window although rows were skipped before it, proves nothing.
 *
 * Whenever `locatePage` proves a page this does too, with the same rows (a property test holds
 * the two against each other); it may prove pages `locatePage` does not.
 */
import { BinaryHeap } from './binary-heap.js';
import { closeIterators } from './close-iterators.js';
import type { UnprovenPage, WindowShape } from './locate-page.js';
import type { RowComparator } from './row-comparator.js';
import type { Row } from './row.js';

/** The page's rows, in order. */
export interface StreamedPage {
  readonly kind: 'page';
  readonly rows: readonly Row[];
}

interface Entry {
  readonly row: Row;
  readonly input: number;
}

export async function streamWindowPage(inputs: readonly AsyncIterable<Row>[], shape: WindowShape, compare: RowComparator): Promise<StreamedPage | UnprovenPage> {
  const unproven = (reason: string): UnprovenPage => ({ kind: 'unproven', reason });
  const skipped = shape.start * inputs.length;
  if (skipped > shape.offset) return unproven('the windows begin after the offset');
  const first = shape.offset - skipped;
  const iterators = inputs.map((input) => input[Symbol.asyncIterator]());
  const open = new Set(iterators);
  let failed = false;
  const pull = async (input: number): Promise<IteratorResult<Row>> => {
    const iterator = iterators[input]!;
    try {
      const result = await iterator.next();
      if (result.done === true) open.delete(iterator);
      return result;
    } catch (error) {
      open.delete(iterator);
      throw error;
    }
  };
  try {
    const heads = await Promise.allSettled(iterators.map((_, input) => pull(input)));
    for (const head of heads) if (head.status === 'rejected') throw head.reason;
    const heap = new BinaryHeap<Entry>((a, b) => compare(a.row, b.row) || a.input - b.input);
    const sent: number[] = [];
    const last: Row[] = [];
    let latestFirst: Row | undefined;
    for (let input = 0; input < heads.length; input++) {
      const head = (heads[input] as PromiseFulfilledResult<IteratorResult<Row>>).value;
      sent[input] = 0;
      if (head.done === true) {
        if (shape.start > 0) return unproven(`an input holds at most ${shape.start} rows: its rows before the window are not counted`);
        continue;
      }
      sent[input] = 1;
      last[input] = head.value;
      if (latestFirst === undefined || compare(head.value, latestFirst) > 0) latestFirst = head.value;
      heap.push({ row: head.value, input });
    }
    const page: Row[] = [];
    let merged = 0;
    // Set once a full window has been merged to its end: nothing after may be handed on.
    let cut = false;
    for (let top = heap.peek(); top !== undefined && page.length < shape.count; top = heap.peek()) {
      if (cut) return unproven('the windows end before the page does');
      if (merged >= first) {
        if (merged === first && shape.start > 0 && compare(top.row, latestFirst!) <= 0) return unproven("the page begins before an input's window does");
        page.push(top.row);
      }
      merged++;
      const next = await pull(top.input);
      if (next.done === true) {
        heap.pop();
        if (sent[top.input] === shape.rows) cut = true;
        continue;
      }
      if (compare(last[top.input]!, next.value) > 0) return unproven("an input's rows are not in the merge's order");
      sent[top.input]!++;
      last[top.input] = next.value;
      heap.replaceTop({ row: next.value, input: top.input });
    }
    // Fewer rows than the page: right only if no full window ended before it (every input was read to its end).
    if (page.length < shape.count && cut) return unproven('the windows end before the page does');
    return { kind: 'page', rows: page };
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    await closeIterators(open, !failed);
  }
}

import { BinaryHeap } from './binary-heap.js';
import { closeIterators } from './close-iterators.js';
import { createRowComparator, describeSortKeys, type RowComparator, type SortKey } from './row-comparator.js';
import type { MergeOperator, Row } from './row.js';

/** Streaming k-way merge of inputs that are each already sorted by `keys`. */
export interface MergeSortOperator extends MergeOperator {
  readonly kind: 'merge-sort';
  readonly keys: readonly SortKey[];
}

/**
 * Merges inputs that are each sorted by `keys` into one sorted stream (Vitess's
 * `MergeSort`, ShardingSphere's order-by stream merge). It holds one row per input in a
 * binary heap, so memory is O(inputs) however deep the page, and pulls the next row of an
 * input only after that input's previous row was handed on.
 *
 * Every input is asked for its first row at once, so lazily started shard streams run
 * together. Ties go to the lower input index; rows of one input keep their order, so the
 * output is deterministic. If an input fails (before its first row or mid-stream) the
 * error propagates and every other open input is closed; closing the merge closes them all.
 */
export function createMergeSort(inputs: readonly AsyncIterable<Row>[], keys: readonly SortKey[]): MergeSortOperator {
  const compareRows = createRowComparator(keys);
  return Object.freeze({
    kind: 'merge-sort',
    inputs,
    keys,
    describe: () =>
      `MergeSort(${keys.length} ${keys.length === 1 ? 'key' : 'keys'}: ${describeSortKeys(keys)}) over ${inputs.length} inputs`,
    [Symbol.asyncIterator]: () => mergeSorted(inputs, compareRows),
  } as const);
}

interface HeapEntry {
  readonly row: Row;
  readonly input: number;
}

async function* mergeSorted(inputs: readonly AsyncIterable<Row>[], compareRows: RowComparator): AsyncGenerator<Row> {
  const iterators: AsyncIterator<Row>[] = [];
  // Iterators that are neither exhausted nor failed: the ones to close on early exit.
  const open = new Set<AsyncIterator<Row>>();
  let failed = false;

  const pull = async (input: number): Promise<IteratorResult<Row>> => {
    const iterator = iterators[input] as AsyncIterator<Row>;
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
    for (const input of inputs) {
      const iterator = input[Symbol.asyncIterator]();
      iterators.push(iterator);
      open.add(iterator);
    }
    const heap = new BinaryHeap<HeapEntry>((a, b) => compareRows(a.row, b.row) || a.input - b.input);
    const firsts = await Promise.allSettled(iterators.map((_, input) => pull(input)));
    for (const first of firsts) {
      if (first.status === 'rejected') throw first.reason;
    }
    firsts.forEach((first, input) => {
      if (first.status === 'fulfilled' && first.value.done !== true) heap.push({ row: first.value.value, input });
    });

    for (let top = heap.peek(); top !== undefined; top = heap.peek()) {
      yield top.row;
      const next = await pull(top.input);
      if (next.done === true) heap.pop();
      else heap.replaceTop({ row: next.value, input: top.input });
    }
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    await closeIterators(open, !failed);
  }
}

import { closeIterators, closeUnread } from './close-iterators.js';
import type { MergeOperator, Row } from './row.js';

/** Inputs one after another, for results without ORDER BY. */
export interface ConcatOperator extends MergeOperator {
  readonly kind: 'concat';
}

/**
 * Yields every row of input 0, then of input 1, and so on (ShardingSphere's iterator
 * merge). On an error or an early close, the input being read and every input not yet
 * reached are closed.
 */
export function createConcat(inputs: readonly AsyncIterable<Row>[]): ConcatOperator {
  return Object.freeze({
    kind: 'concat',
    inputs,
    describe: () => `Concat over ${inputs.length} inputs`,
    [Symbol.asyncIterator]: () => concatenate(inputs),
  } as const);
}

async function* concatenate(inputs: readonly AsyncIterable<Row>[]): AsyncGenerator<Row> {
  let index = 0;
  let current: AsyncIterator<Row> | undefined;
  let failed = false;
  try {
    for (; index < inputs.length; index++) {
      current = (inputs[index] as AsyncIterable<Row>)[Symbol.asyncIterator]();
      for (;;) {
        let result: IteratorResult<Row>;
        try {
          result = await current.next();
        } catch (error) {
          current = undefined;
          throw error;
        }
        if (result.done === true) break;
        yield result.value;
      }
      current = undefined;
    }
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    const unread = inputs.slice(index + 1);
    await Promise.all([
      closeIterators(current === undefined ? [] : [current], !failed),
      closeUnread(unread, !failed),
    ]);
  }
}

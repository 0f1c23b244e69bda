/**
 * Closes iterators (calls `return()`) concurrently and waits for all of them. When
 * `rethrow` is true the first failure to close is thrown after every close has settled;
 * otherwise close failures are dropped because another error is already on its way out.
 */
export async function closeIterators(iterators: Iterable<AsyncIterator<unknown>>, rethrow: boolean): Promise<void> {
  await settle(Array.from(iterators, (iterator) => async () => iterator.return?.()), rethrow);
}

/**
 * Opens and at once closes inputs that were never read, so that a producer that started
 * work eagerly (an executor stream) learns it can stop. Same `rethrow` rule as
 * {@link closeIterators}.
 */
export async function closeUnread(inputs: Iterable<AsyncIterable<unknown>>, rethrow: boolean): Promise<void> {
  await settle(Array.from(inputs, (input) => async () => input[Symbol.asyncIterator]().return?.()), rethrow);
}

async function settle(closers: readonly (() => Promise<unknown>)[], rethrow: boolean): Promise<void> {
  const results = await Promise.allSettled(closers.map((close) => close()));
  if (!rethrow) return;
  for (const result of results) {
    if (result.status === 'rejected') throw result.reason;
  }
}

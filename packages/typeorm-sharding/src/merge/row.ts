import type { Row } from '../values/row.js';

export type { Row };

/** Anything that can name itself in one line for EXPLAIN output and golden tests. */
export interface Describable {
  /** One line, e.g. `Limit(offset=20, count=20)`. */
  describe(): string;
}

/**
 * A merge operator: a lazy stream of rows built over other streams. Building one does no
 * work; iterating it pulls from its inputs, and closing it (`return()`) closes them.
 */
export interface MergeOperator extends AsyncIterable<Row>, Describable {
  /** Discriminator naming the operator, e.g. `'merge-sort'`. */
  readonly kind: string;
  /** The streams this operator reads, in order; used to print EXPLAIN trees. */
  readonly inputs: readonly AsyncIterable<Row>[];
}

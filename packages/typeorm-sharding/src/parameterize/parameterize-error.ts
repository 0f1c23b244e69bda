import { ShardingError, type ShardingErrorDetails } from '../errors/index.js';

/**
 * The number of `?` placeholders in a statement (outside strings, comments and quoted
 * identifiers) differs from the number of parameters passed with it, so values cannot
 * be matched to their positions.
 */
export class ParameterCountError extends ShardingError {
  readonly code = 'SHARDING_PARAMETER_COUNT';
  /** `?` placeholders found in the text. */
  readonly placeholders: number;
  /** Parameters received. */
  readonly received: number;

  constructor(placeholders: number, received: number, details: Partial<ShardingErrorDetails> = {}) {
    super(
      `The statement has ${placeholders} '?' placeholder(s) but ${received} parameter(s) were given`,
      { stage: 'parameterize', ...details },
    );
    this.placeholders = placeholders;
    this.received = received;
  }
}

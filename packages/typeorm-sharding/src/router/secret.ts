import { inspect } from 'node:util';

const REDACTED = '[redacted]';

/**
 * A password or other secret read from the environment. Its value leaves the object only
 * through `reveal()`, called where a connection is opened: printing it, logging it, putting
 * it into an error message or `JSON.stringify`-ing a configuration shows `[redacted]`.
 */
export class Secret {
  readonly #value: string;
  /** The environment variable it came from, if any (safe to print: a name, not a value). */
  readonly source: string | undefined;

  constructor(value: string, source?: string) {
    this.#value = value;
    this.source = source;
  }

  /** The secret itself, for the driver. Never log what this returns. */
  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return this.source === undefined ? `Secret(${REDACTED})` : `Secret(\${${this.source}})`;
  }
}

/** An empty password (MariaDB's `root` on a development machine). */
export const NO_PASSWORD = new Secret('');

import { ParameterCountError } from './parameterize-error.js';
import { parameterize } from './parameterize.js';
import type { InListSlot, ParameterizedSql, SqlDialect, ValueSlot } from './parameterized-sql.js';

/**
 * Longer texts are not kept: a statement with a long IN list holds one slot object per value,
 * and its own execution dwarfs the lexing anyway. This bounds the cache to a few MiB.
 */
const MAX_CACHED_TEXT = 2048;

interface Entry {
  readonly shape: ParameterizedSql;
  readonly placeholders: number;
}

/**
 * Remembers the parameterization of exact statement texts. TypeORM sends the same text again
 * and again with new `?` values (every `findOneBy({ id })` on MySQL, string keys on SQLite):
 * a hit costs one Map lookup and re-binds the values, instead of lexing the text again.
 *
 * Two generations instead of an LRU: texts that differ only in inline literals (SQLite writes
 * numbers into the SQL) churn through the cache, and dropping a whole old generation keeps
 * every operation O(1).
 */
export class ParameterizeCache {
  private current = new Map<string, Entry>();
  private previous = new Map<string, Entry>();

  constructor(
    private readonly dialect: SqlDialect,
    private readonly generationSize = 512,
  ) {}

  parameterize(sql: string, parameters: readonly unknown[]): ParameterizedSql {
    if (sql.length > MAX_CACHED_TEXT) return parameterize(sql, parameters, this.dialect);
    let entry = this.current.get(sql);
    if (entry === undefined) {
      entry = this.previous.get(sql);
      if (entry === undefined) {
        const shape = parameterize(sql, parameters, this.dialect);
        this.remember(sql, { shape, placeholders: parameters.length });
        return shape;
      }
      this.remember(sql, entry);
    }
    if (parameters.length !== entry.placeholders) throw new ParameterCountError(entry.placeholders, parameters.length, { sql });
    return entry.placeholders === 0 ? entry.shape : rebind(entry.shape, parameters);
  }

  private remember(sql: string, entry: Entry): void {
    if (this.current.size >= this.generationSize) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(sql, entry);
  }
}

/** The same shape with this statement's `?` values (inline literals are part of the text, so unchanged). */
function rebind(shape: ParameterizedSql, parameters: readonly unknown[]): ParameterizedSql {
  const bindSlot = (s: ValueSlot): ValueSlot => (s.paramIndex === undefined ? s : { ...s, value: parameters[s.paramIndex] });
  const bindList = (l: InListSlot): InListSlot => ({ ...l, items: l.items.map(bindSlot) });
  // Object.create keeps the lazily computed fields of the shape (parserSql) reachable.
  const bound = Object.create(shape) as { -readonly [K in keyof ParameterizedSql]: ParameterizedSql[K] };
  bound.parameters = parameters;
  bound.slots = shape.slots.map(bindSlot);
  bound.inLists = shape.inLists.map(bindList);
  return bound;
}

import { ParameterCountError } from './parameterize-error.js';
import { parameterize, type ParameterizedStatement } from './parameterize.js';
import type { InListSlot, ParameterizedSql, SqlDialect, ValueSlot } from './parameterized-sql.js';

/**
 * Longer texts are not kept: a statement with a long IN list holds one slot object per value,
 * and its own execution dwarfs the lexing anyway. This bounds the cache to a few MiB.
 */
const MAX_CACHED_TEXT = 2048;

interface Entry {
  readonly shape: ParameterizedStatement;
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
function rebind(shape: ParameterizedStatement, parameters: readonly unknown[]): ParameterizedSql {
  // Plain loops: this runs for every statement whose text was seen before (every MySQL find).
  const slots = new Array<ValueSlot>(shape.slots.length);
  for (let i = 0; i < shape.slots.length; i++) slots[i] = bindSlot(shape.slots[i]!, parameters);
  const inLists = new Array<InListSlot>(shape.inLists.length);
  for (let l = 0; l < shape.inLists.length; l++) {
    const list = shape.inLists[l]!;
    const items = new Array<ValueSlot>(list.items.length);
    for (let i = 0; i < items.length; i++) items[i] = bindSlot(list.items[i]!, parameters);
    inLists[l] = { open: list.open, close: list.close, items, negated: list.negated };
  }
  return shape.withParameters(parameters, slots, inLists);
}

function bindSlot(s: ValueSlot, parameters: readonly unknown[]): ValueSlot {
  return s.paramIndex === undefined ? s : { start: s.start, end: s.end, paramIndex: s.paramIndex, value: parameters[s.paramIndex], isNumericLiteral: s.isNumericLiteral };
}

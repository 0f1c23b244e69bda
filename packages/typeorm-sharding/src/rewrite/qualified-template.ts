/**
 * The statement with a placeholder database in front of each table it names, made once per
 * statement text (kept with its parameterized form, which the text cache reuses), so that each
 * shard's statement is qualified by a string replacement instead of lexing it again: the
 * planner's cost per physical statement stays what it was.
 *
 * Rewriting works on the template as on the original (its value slots and IN lists are moved
 * by the inserted text); `forDatabase` then puts the shard's database where the placeholder is.
 */
import type { InListSlot, ParameterizedSql, ValueSlot } from '../parameterize/index.js';
import { databasePrefix, tablePositions } from './qualify-tables.js';
import { singleWriteTarget } from './address-shard.js';

/** Written before each table: a quoted identifier no SQL holds (checked), replaced per shard. */
const PLACEHOLDER = '`\u0001`.';

export interface QualifiedTemplate {
  /** The statement with `PLACEHOLDER` before each table; positions moved accordingly. */
  readonly p: ParameterizedSql;
  /** Tables qualified. */
  readonly count: number;
}

const cache = new WeakMap<ParameterizedSql, QualifiedTemplate | null>();

/**
 * The template of `p`, or undefined when its tables cannot all be found: a SELECT must have
 * `references` tables in its FROM lists (the planner's count), a write exactly one target and no
 * other table; a CTE, or text that holds the placeholder character, is never qualified.
 */
export function qualifiedTemplate(p: ParameterizedSql, shape: { kind: 'select'; references: number } | { kind: 'write' }, isTable: (name: string) => boolean): QualifiedTemplate | undefined {
  let template = cache.get(p);
  if (template === undefined) {
    template = build(p, shape, isTable) ?? null;
    cache.set(p, template);
  }
  return template ?? undefined;
}

function build(p: ParameterizedSql, shape: { kind: 'select'; references: number } | { kind: 'write' }, isTable: (name: string) => boolean): QualifiedTemplate | undefined {
  if (p.sql.includes('\u0001')) return undefined;
  const found = shape.kind === 'select' ? tablePositions(p.sql, isTable) : singleWriteTarget(p.sql, isTable);
  if (!found || found.hasWith) return undefined;
  if (shape.kind === 'select' && found.positions.length !== shape.references) return undefined;
  if (found.positions.length === 0) return undefined;
  return { p: withInsertions(p, found.positions), count: found.positions.length };
}

/** `p` with `PLACEHOLDER` inserted at each of `positions` (ascending), its slots and lists moved. */
function withInsertions(p: ParameterizedSql, positions: readonly number[]): ParameterizedSql {
  const shift = (at: number) => {
    let n = 0;
    while (n < positions.length && positions[n]! <= at) n++;
    return at + n * PLACEHOLDER.length;
  };
  let sql = '';
  let copied = 0;
  for (const at of positions) {
    sql += p.sql.slice(copied, at) + PLACEHOLDER;
    copied = at;
  }
  sql += p.sql.slice(copied);
  const moveSlot = (s: ValueSlot): ValueSlot => ({ ...s, start: shift(s.start), end: shift(s.end) });
  const moveList = (l: InListSlot): InListSlot => ({ ...l, open: shift(l.open), close: shift(l.close), items: l.items.map(moveSlot) });
  return {
    sql,
    parameters: p.parameters,
    key: p.key,
    get parserSql() {
      return p.parserSql;
    },
    slots: p.slots.map(moveSlot),
    inLists: p.inLists.map(moveList),
    verb: p.verb,
  };
}

/** A statement written from the template, for `database`. */
export function forDatabase(sql: string, database: string): string {
  return sql.split(PLACEHOLDER).join(databasePrefix(database));
}

import type { ParameterizedSql, SqlDialect } from '../../parameterize/index.js';

/** Planner expressions quote identifiers with backticks; SQLite wants double quotes. */
export function quoteFor(expression: string, dialect: SqlDialect): string {
  if (dialect === 'mysql') return expression;
  return expression.replace(/`((?:[^`]|``)*)`/g, (_, name: string) => `"${name.replace(/``/g, '`').replace(/"/g, '""')}"`);
}

/** An alias the rewrite adds, quoted for the dialect. */
export function aliasText(alias: string, dialect: SqlDialect): string {
  return quoteFor(`\`${alias}\``, dialect);
}

/**
 * A planner expression in the dialect's quoting, its value slots written as this statement
 * writes them: a literal's own text, or a `?` whose value is appended to `values`.
 */
export function withSlots(expression: string, p: ParameterizedSql, dialect: SqlDialect, values: unknown[]): string {
  // The NUL-delimited slot markers of `slotMarker` (a character no SQL text holds).
  // eslint-disable-next-line no-control-regex
  return quoteFor(expression, dialect).replace(/\u0000(\d+)\u0000/g, (_, n: string) => {
    const slot = p.slots[Number(n)]!;
    if (slot.paramIndex === undefined) return p.sql.slice(slot.start, slot.end);
    values.push(p.parameters[slot.paramIndex]);
    return '?';
  });
}

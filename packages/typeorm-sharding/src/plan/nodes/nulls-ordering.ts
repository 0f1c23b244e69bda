/**
 * `ORDER BY x NULLS FIRST | NULLS LAST` (SQLite, and TypeORM's `order: { x: { nulls } }`):
 * node-sql-parser's MySQL grammar does not read it, so it is taken out of the parser text
 * here and given back per item of the outermost ORDER BY.
 */

const NULLS = /\bNULLS\s+(FIRST|LAST)\b/gi;

/** Parser text without NULLS FIRST/LAST, and the placement written for each item of the outermost ORDER BY. */
export interface NullsOrdering {
  readonly text: string;
  readonly nulls: readonly ('FIRST' | 'LAST' | undefined)[];
}

export function stripNullsOrdering(parserSql: string): NullsOrdering {
  if (!/\bNULLS\b/i.test(parserSql)) return { text: parserSql, nulls: [] };
  // Depth of each offset outside backtick identifiers (the parser text has no string literals: values are slots).
  const depthAt = new Int32Array(parserSql.length + 1);
  let depth = 0;
  let quoted = false;
  let orderBy = -1;
  for (let i = 0; i < parserSql.length; i++) {
    const c = parserSql[i]!;
    if (c === '`') quoted = !quoted;
    else if (!quoted && c === '(') depth++;
    else if (!quoted && c === ')') depth--;
    depthAt[i] = quoted ? -1 : depth;
    if (!quoted && depth === 0 && /^ORDER\s+BY\b/i.test(parserSql.slice(i, i + 12)) && (i === 0 || /\W/.test(parserSql[i - 1]!))) orderBy = i;
  }
  const nulls: ('FIRST' | 'LAST' | undefined)[] = [];
  const text = parserSql.replace(NULLS, (match: string, which: string, at: number) => {
    if (orderBy >= 0 && at > orderBy && depthAt[at] === 0) {
      let item = 0;
      for (let i = orderBy; i < at; i++) if (parserSql[i] === ',' && depthAt[i] === 0) item++;
      nulls[item] = which.toUpperCase() as 'FIRST' | 'LAST';
    }
    return ' '.repeat(match.length);
  });
  return { text, nulls };
}

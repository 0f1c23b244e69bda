import { ShardingInternalError } from '../errors/index.js';
import { lexedOf, memoOf, MemoKey, TokenKind } from '../parameterize/index.js';
import type { ParameterizedSql, SqlDialect } from '../parameterize/index.js';

/** Offsets in the outermost SELECT where the rewrite inserts or cuts (-1 when absent). */
export interface TopLevelClauses {
  readonly from: number;
  readonly having: number;
  /** Where the HAVING clause ends: the next top-level clause keyword / end of text. */
  readonly havingEnd: number;
  /**
   * Where expressions are appended to the GROUP BY: after its last item when there is one
   * (`groupBy` true), else where a GROUP BY clause would begin.
   */
  readonly groupByEnd: number;
  readonly groupBy: boolean;
}

const CLAUSES: Record<SqlDialect, MemoKey<TopLevelClauses>> = { mysql: new MemoKey('top-level clauses mysql'), sqlite: new MemoKey('top-level clauses sqlite') };
/** Clause keywords that can follow WHERE / GROUP BY at the top level, in order. */
const AFTER_GROUP = new Set(['HAVING', 'WINDOW', 'ORDER', 'LIMIT', 'FOR', 'LOCK', 'UNION', 'INTO']);

/**
 * The outermost SELECT's FROM, GROUP BY and HAVING, found in the statement's tokens once per
 * text. Only a scattered query that needs derived columns, extra GROUP BY values or a HAVING
 * moved to the merge asks.
 */
export function topLevelClauses(p: ParameterizedSql, dialect: SqlDialect): TopLevelClauses {
  return memoOf(p).get(CLAUSES[dialect], () => findClauses(p, dialect));
}

function findClauses(p: ParameterizedSql, dialect: SqlDialect): TopLevelClauses {
  const tokens = lexedOf(p, dialect);
  const count = tokens.count;
  let depth = 0;
  let from = -1;
  let having = -1;
  let havingEnd = -1;
  let groupBy = false;
  let groupByEnd = -1;
  // End of the last token seen: where a clause that follows begins to be written.
  let lastEnd = 0;
  for (let i = 0; i < count; i++) {
    const kind = tokens.kinds[i];
    if (kind === TokenKind.Open) depth++;
    else if (kind === TokenKind.Close) depth--;
    else if (depth === 0) {
      const word = kind === TokenKind.Word ? p.sql.slice(tokens.starts[i], tokens.ends[i]).toUpperCase() : '';
      if (word === 'FROM' && from < 0) from = tokens.starts[i]!;
      else if (word === 'GROUP' && from >= 0) groupBy = true;
      else if (from >= 0 && (AFTER_GROUP.has(word) || kind === TokenKind.Semicolon)) {
        if (groupByEnd < 0) groupByEnd = lastEnd;
        if (having >= 0 && havingEnd < 0) havingEnd = tokens.starts[i]!;
        if (word === 'HAVING') having = tokens.starts[i]!;
        if (kind === TokenKind.Semicolon || word === 'UNION' || word === 'INTO') break;
      }
    }
    lastEnd = tokens.ends[i]!;
  }
  if (from < 0) throw new ShardingInternalError('no top-level FROM in a SELECT that needs derived columns', { stage: 'rewrite', sql: p.sql });
  if (groupByEnd < 0) groupByEnd = lastEnd;
  if (having >= 0 && havingEnd < 0) havingEnd = p.sql.length;
  return { from, having, havingEnd, groupBy, groupByEnd };
}

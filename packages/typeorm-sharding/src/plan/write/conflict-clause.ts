import { lex, TokenBuffer, TokenKind } from '../../parameterize/lexer.js';
import type { SqlDialect } from '../../parameterize/index.js';
import type { ConflictHandling } from '../../rules/index.js';

const tokens = new TokenBuffer();

/**
 * The conflict handling of an `INSERT … VALUES` / `REPLACE`, read from its text: MySQL's
 * `INSERT IGNORE`, `REPLACE`, `ON DUPLICATE KEY UPDATE …`, SQLite's `INSERT OR IGNORE|REPLACE`
 * and `ON CONFLICT [(cols)] DO NOTHING | DO UPDATE SET …` (one entry per clause). Empty for a
 * plain INSERT.
 */
export function conflictClausesOf(sql: string, dialect: SqlDialect): ConflictHandling[] {
  const count = lex(sql, dialect, tokens);
  const text = (i: number) => sql.slice(tokens.starts[i], tokens.ends[i]);
  const word = (i: number) => (i < count && tokens.kinds[i] === TokenKind.Word ? text(i).toUpperCase() : '');
  const out: ConflictHandling[] = [];
  if (word(0) === 'REPLACE') out.push({ clause: 'REPLACE', target: 'any-unique-key', assignments: [] });
  if (word(0) === 'INSERT') {
    let i = 1;
    while (['LOW_PRIORITY', 'DELAYED', 'HIGH_PRIORITY'].includes(word(i))) i++;
    if (word(i) === 'IGNORE') out.push({ clause: 'INSERT IGNORE', target: 'any-unique-key', assignments: [] });
    if (word(i) === 'OR' && (word(i + 1) === 'IGNORE' || word(i + 1) === 'REPLACE')) {
      out.push({ clause: `INSERT OR ${word(i + 1)}`, target: 'any-unique-key', assignments: [] });
    }
  }
  // The tail after the VALUES rows: `ON …` at depth 0.
  let depth = 0;
  let afterValues = false;
  for (let i = 0; i < count; i++) {
    const kind = tokens.kinds[i];
    if (kind === TokenKind.Open) depth++;
    else if (kind === TokenKind.Close) depth--;
    if (depth !== 0) continue;
    const w = word(i);
    if (w === 'VALUES' || w === 'VALUE') afterValues = true;
    if (!afterValues || w !== 'ON') continue;
    if (word(i + 1) === 'DUPLICATE' && word(i + 2) === 'KEY' && word(i + 3) === 'UPDATE') {
      const { assignments, next } = assignmentsFrom(i + 4, count, text, word);
      out.push({ clause: 'ON DUPLICATE KEY UPDATE', target: 'any-unique-key', assignments });
      i = next - 1;
    } else if (word(i + 1) === 'CONFLICT') {
      let j = i + 2;
      let target: string[] | undefined;
      if (tokens.kinds[j] === TokenKind.Open) {
        target = [];
        for (j++; j < count && tokens.kinds[j] !== TokenKind.Close; j++) {
          if (tokens.kinds[j] === TokenKind.Word || tokens.kinds[j] === TokenKind.QuotedIdent) target.push(unquote(text(j)));
        }
        j++;
      }
      while (j < count && word(j) !== 'DO') j++; // a partial-index WHERE of the target
      const update = word(j + 1) === 'UPDATE';
      const { assignments, next } = update ? assignmentsFrom(j + 3, count, text, word) : { assignments: [], next: j + 2 };
      out.push({ clause: `ON CONFLICT DO ${update ? 'UPDATE' : 'NOTHING'}`, target: target ?? 'any-unique-key', assignments });
      i = next - 1;
    }
  }
  return out;
}

/** `col = expr, …` from token `start` up to the end of the clause (WHERE, RETURNING, ON, `;`, end). */
function assignmentsFrom(
  start: number,
  count: number,
  text: (i: number) => string,
  word: (i: number) => string,
): { assignments: { column: string; value: string }[]; next: number } {
  const assignments: { column: string; value: string }[] = [];
  let i = start;
  while (i < count) {
    // column, possibly qualified: `t`.`c`
    let column = unquote(text(i));
    i++;
    while (tokens.kinds[i] === TokenKind.Dot) {
      column = unquote(text(i + 1));
      i += 2;
    }
    i++; // =
    const from = i;
    let depth = 0;
    for (; i < count; i++) {
      const kind = tokens.kinds[i];
      if (kind === TokenKind.Open) depth++;
      else if (kind === TokenKind.Close) depth--;
      else if (depth === 0 && (kind === TokenKind.Comma || kind === TokenKind.Semicolon || ['WHERE', 'RETURNING', 'ON'].includes(word(i)))) break;
    }
    assignments.push({ column, value: sliceTokens(from, i - 1, text) });
    if (tokens.kinds[i] !== TokenKind.Comma) break;
    i++;
  }
  return { assignments, next: i };
}

function sliceTokens(first: number, last: number, text: (i: number) => string): string {
  const parts: string[] = [];
  for (let i = first; i <= last; i++) parts.push(text(i));
  return parts.join(' ');
}

function unquote(t: string): string {
  const q = t[0];
  if (q === '`' || q === '"') return t.slice(1, -1).split(q + q).join(q);
  return t;
}

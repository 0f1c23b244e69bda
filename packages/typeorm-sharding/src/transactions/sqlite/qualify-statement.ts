import { lex, TokenBuffer, TokenKind } from '../../parameterize/index.js';

const tokens = new TokenBuffer();

/** Words after which, at the same depth, a FROM list is over. */
const FROM_LIST_END = new Set(['WHERE', 'GROUP', 'HAVING', 'ORDER', 'LIMIT', 'UNION', 'EXCEPT', 'INTERSECT', 'WINDOW', 'ON', 'USING', 'RETURNING', 'SET', 'VALUES', 'SELECT']);
/** Objects whose name follows `CREATE … <kind> [IF NOT EXISTS]` / `DROP <kind> [IF EXISTS]`. */
const SCHEMA_OBJECTS = new Set(['TABLE', 'INDEX', 'VIEW', 'TRIGGER']);
/** Words between INSERT / UPDATE and the table: `OR REPLACE` … */
const CONFLICT = new Set(['OR', 'ROLLBACK', 'ABORT', 'REPLACE', 'FAIL', 'IGNORE']);

/**
 * The statement with every table it names written as `"<schema>"."<table>"`, for a shard
 * attached to another shard's connection under `schema`; undefined when that cannot be done
 * with certainty (a CTE, a TEMP object, an unknown statement form). The caller then checks
 * the result against SQLite's own plan (`verifySchema`).
 *
 * Written: tables after FROM / JOIN / the commas of a comma join (at any depth), the target of
 * INSERT / REPLACE / UPDATE, the name a CREATE / DROP / ALTER names, and a PRAGMA. Left alone:
 * table-valued functions, names already qualified, the table of `CREATE INDEX … ON t` and of
 * `REFERENCES t`, the new name of `RENAME TO`, and the body of a view or trigger (SQLite
 * resolves those within the object's own schema).
 */
export function qualifyForSchema(sql: string, schema: string): string | undefined {
  const count = lex(sql, 'sqlite', tokens);
  const word = (i: number) => (i < count && tokens.kinds[i] === TokenKind.Word ? sql.slice(tokens.starts[i], tokens.ends[i]).toUpperCase() : '');
  const isName = (i: number) => i < count && (tokens.kinds[i] === TokenKind.Word || tokens.kinds[i] === TokenKind.QuotedIdent);
  const positions: number[] = [];
  /**
   * Qualifies the name at `i` unless it is qualified already, or (in a FROM list, `inFrom`) a
   * table-valued function call; false when `i` is no name.
   */
  const take = (i: number, inFrom = false): boolean => {
    if (!isName(i)) return false;
    // The buffer is reused: past `count` it holds an earlier statement's tokens.
    const next = i + 1 < count ? tokens.kinds[i + 1] : undefined;
    if (next !== TokenKind.Dot && !(inFrom && next === TokenKind.Open)) positions.push(tokens.starts[i]!);
    return true;
  };
  const verb = word(0);
  if (verb === 'WITH') return undefined;
  if (verb === 'PRAGMA') {
    if (!isName(1) || (count > 2 && tokens.kinds[2] === TokenKind.Dot)) return undefined;
    positions.push(tokens.starts[1]!);
    return splice(sql, positions, schema);
  }
  if (verb === 'CREATE' || verb === 'DROP' || verb === 'ALTER') {
    let i = 1;
    if (word(i) === 'UNIQUE') i++;
    if (word(i) === 'TEMP' || word(i) === 'TEMPORARY' || word(i) === 'VIRTUAL' || !SCHEMA_OBJECTS.has(word(i))) return undefined;
    const object = word(i++);
    if (word(i) === 'IF') i += verb === 'DROP' ? 2 : 3;
    if (!take(i)) return undefined;
    // The body of a view or trigger, and the table of an index, stay as written.
    if (object === 'VIEW' || object === 'TRIGGER' || object === 'INDEX' || verb !== 'CREATE') return splice(sql, positions, schema);
    // CREATE TABLE … AS SELECT reads tables: qualify its FROM lists too.
    fromLists(i + 1, count, word, take);
    return splice(sql, positions, schema);
  }
  if (verb === 'INSERT' || verb === 'REPLACE') {
    let i = 1;
    while (CONFLICT.has(word(i))) i++;
    if (word(i) !== 'INTO' || !take(i + 1)) return undefined;
  } else if (verb === 'UPDATE') {
    let i = 1;
    while (CONFLICT.has(word(i))) i++;
    if (!take(i)) return undefined;
  } else if (verb !== 'SELECT' && verb !== 'DELETE') {
    return undefined;
  }
  fromLists(1, count, word, take);
  return splice(sql, positions, schema);
}

/** Finds the table names of every FROM list from token `from` on and hands each to `take`. */
function fromLists(from: number, count: number, word: (i: number) => string, take: (i: number, inFrom: boolean) => boolean): void {
  let depth = 0;
  const listDepths: number[] = [];
  let expectTable = false;
  for (let i = from; i < count; i++) {
    const kind = tokens.kinds[i];
    const w = word(i);
    const inList = listDepths[listDepths.length - 1] === depth;
    if (kind === TokenKind.Open) {
      depth++;
      expectTable = false;
    } else if (kind === TokenKind.Close) {
      if (inList) listDepths.pop();
      depth--;
    } else if (w === 'FROM' || w === 'JOIN') {
      if (w === 'FROM' && !inList) listDepths.push(depth);
      expectTable = true;
    } else if (inList && kind === TokenKind.Comma) {
      expectTable = true;
    } else if (inList && FROM_LIST_END.has(w)) {
      if (w !== 'ON' && w !== 'USING') listDepths.pop();
      expectTable = false;
    } else if (expectTable) {
      expectTable = false;
      take(i, true);
    }
  }
}

function splice(sql: string, positions: readonly number[], schema: string): string {
  const prefix = `"${schema.replace(/"/g, '""')}".`;
  let out = '';
  let copied = 0;
  for (const at of [...positions].sort((a, b) => a - b)) {
    out += sql.slice(copied, at) + prefix;
    copied = at;
  }
  return out + sql.slice(copied);
}

/**
 * What a DDL statement changes, read from its tokens (quoting never matters): the tables it
 * creates, alters, drops or renames, the tables it only reads (`CREATE TABLE … AS SELECT`,
 * `CREATE VIEW`), or the schema object it names without a table (SQLite's `DROP INDEX i`).
 * Foreign-key targets (`REFERENCES t`) are neither: they do not decide where the DDL runs.
 */
import { TokenKind, type SqlDialect } from '../../parameterize/index.js';
import { isIdentifier, isKeyword, statementTokens, type StatementToken } from '../nodes/statement-tokens.js';

/** A schema object that DDL can name without naming its table. */
export type SchemaObjectKind = 'index' | 'trigger' | 'view';

/** A name as written: `name`, or `qualifier.name`. */
export interface QualifiedName {
  readonly name: string;
  readonly qualifier: string | undefined;
}

/** The targets of one DDL statement. */
export type DdlTarget =
  /**
   * Tables the statement changes, one group per list entry (`DROP TABLE a, b` has two groups,
   * a rename's old and new names form one group), and tables its `SELECT` part reads.
   */
  | { readonly kind: 'tables'; readonly groups: readonly (readonly string[])[]; readonly reads: readonly string[] }
  /** Objects named without their table: `DROP INDEX i` (SQLite), `DROP TRIGGER t`, `DROP VIEW v`. */
  | { readonly kind: 'objects'; readonly object: SchemaObjectKind; readonly names: readonly QualifiedName[] }
  /** `CREATE VIEW v AS SELECT …`: the view and the identifiers of its query. */
  | { readonly kind: 'view'; readonly name: string; readonly reads: readonly string[] }
  /** A statement about the whole database (SQLite's bare `ANALYZE`). */
  | { readonly kind: 'database' }
  /** A form this reader does not know (procedures, users, databases …). */
  | { readonly kind: 'unknown' };

const UNKNOWN: DdlTarget = { kind: 'unknown' };

/** Reads the targets of a DDL statement (`CREATE`, `ALTER`, `DROP`, `TRUNCATE`, `RENAME`, `OPTIMIZE`, `ANALYZE`). */
export function ddlTargetOf(sql: string, dialect: SqlDialect): DdlTarget {
  const reader = new TokenReader(statementTokens(sql, dialect));
  const verb = reader.next()?.text.toUpperCase();
  switch (verb) {
    case 'CREATE':
      return createTarget(reader);
    case 'ALTER':
      return alterTarget(reader, dialect);
    case 'DROP':
      return dropTarget(reader);
    case 'TRUNCATE':
      reader.skipWords('TABLE');
      return tablesOf(reader.nameList().map((n) => [n.name]));
    case 'RENAME':
      return reader.skipWords('TABLE') ? renameTarget(reader) : UNKNOWN;
    case 'OPTIMIZE':
    case 'ANALYZE': {
      reader.skipWords('NO_WRITE_TO_BINLOG', 'LOCAL');
      const table = reader.skipWords('TABLE');
      if (reader.atEnd()) return table ? UNKNOWN : { kind: 'database' };
      return tablesOf(reader.nameList().map((n) => [n.name]));
    }
    default:
      return UNKNOWN;
  }
}

function tablesOf(groups: string[][], reads: readonly string[] = []): DdlTarget {
  return groups.length === 0 || groups.some((g) => g.length === 0) ? UNKNOWN : { kind: 'tables', groups, reads };
}

function createTarget(r: TokenReader): DdlTarget {
  const object = r.skipToObjectKeyword();
  switch (object) {
    case 'TABLE': {
      r.skipIfExists();
      const name = r.name();
      if (!name) return UNKNOWN;
      return tablesOf([[name.name]], r.identifiersAfterKeyword('SELECT'));
    }
    case 'INDEX':
    case 'TRIGGER': {
      // CREATE INDEX i ON t (…) / CREATE TRIGGER tr BEFORE INSERT ON t …: the table follows the first top-level ON.
      r.skipIfExists();
      if (!r.name() || !r.skipToTopLevel('ON')) return UNKNOWN;
      const table = r.name();
      return table ? tablesOf([[table.name]]) : UNKNOWN;
    }
    case 'VIEW': {
      r.skipIfExists();
      const name = r.name();
      return name ? { kind: 'view', name: name.name, reads: r.identifiersAfterKeyword('AS') } : UNKNOWN;
    }
    default:
      return UNKNOWN;
  }
}

function alterTarget(r: TokenReader, dialect: SqlDialect): DdlTarget {
  const object = r.skipToObjectKeyword();
  if (object === 'VIEW') {
    const name = r.name();
    return name ? { kind: 'view', name: name.name, reads: r.identifiersAfterKeyword('AS') } : UNKNOWN;
  }
  if (object !== 'TABLE') return UNKNOWN;
  const table = r.name();
  if (!table) return UNKNOWN;
  const group = [table.name];
  // The table's new name, if it is renamed (`RENAME COLUMN`/`INDEX`/`KEY` rename something else).
  while (r.skipToTopLevel('RENAME')) {
    if (r.skipWords('COLUMN', 'INDEX', 'KEY', 'CONSTRAINT')) continue;
    const explicit = r.skipWords('TO', 'AS');
    // SQLite's `RENAME a TO b` renames column a; only `RENAME TO b` renames the table.
    if (!explicit && dialect === 'sqlite') continue;
    const renamed = r.name();
    if (renamed) group.push(renamed.name);
  }
  return tablesOf([group]);
}

function dropTarget(r: TokenReader): DdlTarget {
  const object = r.skipToObjectKeyword();
  r.skipIfExists();
  switch (object) {
    case 'TABLE':
      return tablesOf(r.nameList().map((n) => [n.name]));
    case 'INDEX': {
      const index = r.name();
      if (!index) return UNKNOWN;
      if (r.skipWords('ON')) {
        const table = r.name();
        return table ? tablesOf([[table.name]]) : UNKNOWN;
      }
      return { kind: 'objects', object: 'index', names: [index] };
    }
    case 'TRIGGER':
    case 'VIEW': {
      const names = r.nameList();
      return names.length > 0 ? { kind: 'objects', object: object === 'VIEW' ? 'view' : 'trigger', names } : UNKNOWN;
    }
    default:
      return UNKNOWN;
  }
}

/** `RENAME TABLE a TO b, c TO d`: each pair is one group. */
function renameTarget(r: TokenReader): DdlTarget {
  const groups: string[][] = [];
  do {
    const from = r.name();
    if (!from || !r.skipWords('TO')) return UNKNOWN;
    const to = r.name();
    if (!to) return UNKNOWN;
    groups.push([from.name, to.name]);
  } while (r.skipComma());
  return tablesOf(groups);
}

/** Words that may stand between CREATE/ALTER/DROP and the kind of object. */
const OBJECT_KEYWORDS = new Set(['TABLE', 'INDEX', 'TRIGGER', 'VIEW']);
const OTHER_OBJECTS = new Set([
  'DATABASE', 'SCHEMA', 'PROCEDURE', 'FUNCTION', 'EVENT', 'USER', 'ROLE', 'SEQUENCE', 'SERVER',
  'TABLESPACE', 'LOGFILE', 'SPATIAL_REFERENCE', 'PACKAGE', 'AGGREGATE',
]);

/** A cursor over the tokens of one statement. */
class TokenReader {
  private at = 0;

  constructor(private readonly tokens: readonly StatementToken[]) {}

  atEnd(): boolean {
    const t = this.tokens[this.at];
    return t === undefined || t.kind === TokenKind.Semicolon;
  }

  next(): StatementToken | undefined {
    return this.tokens[this.at++];
  }

  /** Skips one of `words` if it comes next; true when one was skipped. */
  skipWords(...words: string[]): boolean {
    const t = this.tokens[this.at];
    if (t && words.some((w) => isKeyword(t, w))) {
      this.at++;
      return true;
    }
    return false;
  }

  skipComma(): boolean {
    if (this.tokens[this.at]?.kind !== TokenKind.Comma) return false;
    this.at++;
    return true;
  }

  skipIfExists(): void {
    if (!isKeyword(this.tokens[this.at], 'IF')) return;
    this.at++;
    this.skipWords('NOT');
    this.skipWords('EXISTS');
  }

  /**
   * Moves past modifiers (`OR REPLACE`, `TEMPORARY`, `UNIQUE`, `DEFINER = …`, …) to the word
   * naming the kind of object, and returns it; '' for any other kind of object.
   */
  skipToObjectKeyword(): string {
    while (!this.atEnd()) {
      const t = this.tokens[this.at++]!;
      if (t.kind !== TokenKind.Word || t.depth > 0) continue;
      const upper = t.text.toUpperCase();
      if (OBJECT_KEYWORDS.has(upper)) return upper;
      if (OTHER_OBJECTS.has(upper)) return '';
    }
    return '';
  }

  /** Moves past the next top-level keyword `upper`; false when there is none. */
  skipToTopLevel(upper: string): boolean {
    while (!this.atEnd()) {
      const t = this.tokens[this.at++]!;
      if (t.depth === 0 && isKeyword(t, upper)) return true;
    }
    return false;
  }

  /** `name` or `qualifier.name`. */
  name(): QualifiedName | undefined {
    const first = this.tokens[this.at];
    if (!isIdentifier(first)) return undefined;
    this.at++;
    if (this.tokens[this.at]?.kind === TokenKind.Dot && isIdentifier(this.tokens[this.at + 1])) {
      const name = this.tokens[this.at + 1]!.text;
      this.at += 2;
      return { name, qualifier: first!.text };
    }
    return { name: first!.text, qualifier: undefined };
  }

  /** `a, b, c` (stops at anything else: `CASCADE`, `;`, the end). */
  nameList(): QualifiedName[] {
    const names: QualifiedName[] = [];
    for (let name = this.name(); name; name = this.skipComma() ? this.name() : undefined) names.push(name);
    return names;
  }

  /** Every identifier after the first top-level keyword `upper` (none when it is absent). */
  identifiersAfterKeyword(upper: string): string[] {
    const from = this.tokens.findIndex((t, i) => i >= this.at && isKeyword(t, upper));
    return from < 0 ? [] : this.tokens.slice(from + 1).filter(isIdentifier).map((t) => t.text);
  }
}

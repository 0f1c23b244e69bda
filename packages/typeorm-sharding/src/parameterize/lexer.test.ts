import { describe, it, expect } from 'vitest';
import { TokenBuffer, TokenKind, lex, type TokenKindValue } from './lexer.js';
import type { SqlDialect } from './parameterized-sql.js';

const names = Object.fromEntries(Object.entries(TokenKind).map(([name, kind]) => [kind, name])) as Record<TokenKindValue, string>;

function tokens(sql: string, dialect: SqlDialect): string[] {
  const buf = new TokenBuffer(4);
  const n = lex(sql, dialect, buf);
  return Array.from({ length: n }, (_, i) => `${names[buf.kinds[i] as TokenKindValue]} ${sql.slice(buf.starts[i], buf.ends[i])}`);
}

describe('lex', () => {
  it.each<[string, SqlDialect, string, string[]]>([
    ['backtick identifiers with doubled backticks', 'mysql', 'a.`b``c`', ['Word a', 'Dot .', 'QuotedIdent `b``c`']],
    ['double quotes are strings in MySQL', 'mysql', '"a""b\\"c"', ['String "a""b\\"c"']],
    ['double quotes are identifiers in SQLite', 'sqlite', '"a""b\\" c', ['QuotedIdent "a""b\\"', 'Word c']],
    ['backslash escapes only in MySQL', 'mysql', "'a\\'b' ?", ["String 'a\\'b'", 'Param ?']],
    ['backslash is plain in SQLite', 'sqlite', "'a\\' ?", ["String 'a\\'", 'Param ?']],
    ['prefixed strings and opaque literals', 'mysql', "N'x' X'0A' b'1' 0x1F 0b10 @v @@session.x", ["String N'x'", "Opaque X'0A'", "Opaque b'1'", 'Opaque 0x1F', 'Opaque 0b10', 'Opaque @v', 'Opaque @@session.x']],
    ['numbers', 'sqlite', '1 1.5 (.5) 1e3 1.5E-3 1abc t.5', ['Number 1', 'Number 1.5', 'Open (', 'Number .5', 'Close )', 'Number 1e3', 'Number 1.5E-3', 'Word 1abc', 'Word t', 'Dot .', 'Number 5']],
    ['signs after operators, ( , and keywords', 'sqlite', '(-1,-2) = -3 IN -4 a-5 a - -6 )-7', ['Open (', 'Number -1', 'Comma ,', 'Number -2', 'Close )', 'Operator =', 'Number -3', 'Word IN', 'Number -4', 'Word a', 'Operator -', 'Number 5', 'Word a', 'Operator -', 'Number -6', 'Close )', 'Operator -', 'Number 7']],
    ['multi-character operators', 'mysql', 'a<=>b<=c<>d!=e>=f||g->>h->i:=j', ['Word a', 'Operator <=>', 'Word b', 'Operator <=', 'Word c', 'Operator <>', 'Word d', 'Operator !=', 'Word e', 'Operator >=', 'Word f', 'Operator ||', 'Word g', 'Operator ->>', 'Word h', 'Operator ->', 'Word i', 'Operator :=', 'Word j']],
    ['MySQL comments', 'mysql', 'a -- x ?\nb # y ?\nc /* ? */ d--1', ['Word a', 'Word b', 'Word c', 'Word d', 'Operator -', 'Number -1']],
    ['SQLite comments', 'sqlite', 'a --x ?\nb # c /* ? */', ['Word a', 'Word b', 'Operator #', 'Word c']],
    ['an unclosed block comment runs to the end', 'mysql', 'a /* ? b', ['Word a']],
    ['unterminated quotes become opaque', 'mysql', "a 'b ? c", ['Word a', "Opaque 'b ? c"]],
    ['punctuation', 'mysql', '(a, b.c);', ['Open (', 'Word a', 'Comma ,', 'Word b', 'Dot .', 'Word c', 'Close )', 'Semicolon ;']],
    ['non-ASCII words', 'sqlite', 'héllo 中文 ?', ['Word héllo', 'Word 中文', 'Param ?']],
  ])('%s', (_name, dialect, sql, expected) => {
    expect(tokens(sql, dialect)).toEqual(expected);
  });

  it('grows its buffer and can be reused', () => {
    const buf = new TokenBuffer(2);
    const sql = Array.from({ length: 500 }, (_, i) => `?${i % 2 ? ',' : ''}`).join(' ');
    expect(lex(sql, 'mysql', buf)).toBe(750);
    expect(lex('a b', 'mysql', buf)).toBe(2);
    expect(buf.count).toBe(2);
  });
});

import { describe, it, expect } from 'vitest';
import { decodeString } from './decode-string.js';
import type { SqlDialect } from './parameterized-sql.js';

describe('decodeString', () => {
  it.each<[SqlDialect, string, string]>([
    ['mysql', "'plain'", 'plain'],
    ['mysql', "''", ''],
    ['mysql', "'it''s'", "it's"],
    ['mysql', String.raw`'it\'s'`, "it's"],
    ['mysql', String.raw`'\0\b\n\r\t\Z\\\"\x'`, '\0\b\n\r\t\x1a\\"x'],
    ['mysql', String.raw`'50\% \_'`, '50\\% \\_'],
    ['mysql', '"say ""hi"""', 'say "hi"'],
    ['mysql', String.raw`N'\u00e9'`, 'u00e9'],
    ['sqlite', String.raw`'C:\n'`, 'C:\\n'],
    ['sqlite', "'it''s'", "it's"],
    ['sqlite', "n'x'", 'x'],
  ])('%s %s', (dialect, literal, value) => {
    expect(decodeString(literal, 0, literal.length, dialect)).toBe(value);
  });

  it('decodes a literal in the middle of a statement', () => {
    const sql = "WHERE a = 'x''y' AND";
    expect(decodeString(sql, 10, 16, 'sqlite')).toBe("x'y");
  });
});

/**
 * String collations the merge reproduces in JavaScript.
 *
 * - `binary`: code point order, which is UTF-8 byte order: SQLite's `BINARY` and MySQL's
 *   `utf8mb4_0900_bin` / MariaDB's `utf8mb4_nopad_bin` exactly. MySQL's older
 *   `utf8mb4_bin` is PAD SPACE (trailing spaces ignored); the two differ only for strings
 *   that end in spaces or hold characters below U+0020 after a common prefix.
 * - `nocase`: SQLite's built-in `NOCASE`, exactly: ASCII `A`–`Z` compare as `a`–`z`, every
 *   other character by its code point (`'Ä'` ≠ `'ä'`).
 * - `rtrim`: SQLite's built-in `RTRIM`, exactly: `binary` with trailing U+0020 spaces ignored.
 * - `case-insensitive`: an approximation of MySQL/MariaDB `utf8mb4_general_ci`,
 *   `utf8mb4_unicode_ci` and `utf8mb4_0900_ai_ci`, see {@link foldCaseInsensitive}.
 *
 * The planner does not use `case-insensitive` for MySQL columns: it selects the server's own
 * sort weights instead (see `mysql-weight.ts`), which are exact for every collation.
 */
export type Collation = 'binary' | 'nocase' | 'rtrim' | 'case-insensitive';

/**
 * Compares two strings by Unicode code point, which equals UTF-8 byte order. JavaScript's
 * `<` compares UTF-16 code units instead, which puts astral characters (emoji, U+1xxxx)
 * before U+E000–U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      if (x < 0xd800 && y < 0xd800) return x - y;
      return utf16ToCodePointRank(x) - utf16ToCodePointRank(y);
    }
  }
  return a.length - b.length;
}

// Moves surrogates (U+D800–U+DFFF, which only encode code points ≥ U+10000) above
// U+E000–U+FFFF. At the first differing unit this makes code unit order agree with
// code point order.
function utf16ToCodePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit < 0xe000 ? unit + 0x2000 : unit - 0x800;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const COMBINING_DIACRITICS = /[\u0300-\u036f]/g;
const TRAILING_SPACES = / +$/;

/**
 * The sort/group weight string of `text` under the `case-insensitive` collation:
 * letters upper-cased (so `_` and `^` sort after `Z`, as in `general_ci`), accents of
 * the Combining Diacritical Marks block removed (`é` = `E`, `Å` = `A`), trailing spaces
 * dropped (PAD SPACE). Two strings are equal under the collation when their folds are
 * equal, and order by the code points of their folds.
 *
 * What is approximated: `unicode_ci`/`0900_ai_ci` order punctuation and digits before
 * letters (UCA) while this keeps code point order; `general_ci` compares `ß` = `S` while
 * this (like `unicode_ci`) gives `ß` = `SS`; `general_ci` treats all characters beyond
 * U+FFFF as equal; ligatures, `Ø`/`Đ`/`Ł`, and CJK/Kana weights are not folded;
 * `0900_ai_ci` is NO PAD. Use a `WEIGHT_STRING()` column when any of this matters.
 */
export function foldCaseInsensitive(text: string): string {
  const folded = PRINTABLE_ASCII.test(text)
    ? text.toUpperCase()
    : text.normalize('NFD').replace(COMBINING_DIACRITICS, '').normalize('NFC').toUpperCase();
  return folded.endsWith(' ') ? folded.replace(TRAILING_SPACES, '') : folded;
}

const ASCII_UPPER = /[A-Z]/;
const ASCII_UPPER_ALL = /[A-Z]+/g;

/**
 * The string that stands for `text` under `collation`: two strings are equal under the
 * collation exactly when their keys are equal, and order as their keys' code points.
 */
export function collationKey(text: string, collation: Collation): string {
  switch (collation) {
    case 'binary':
      return text;
    case 'nocase':
      return ASCII_UPPER.test(text) ? text.replace(ASCII_UPPER_ALL, (run) => run.toLowerCase()) : text;
    case 'rtrim':
      return text.endsWith(' ') ? text.replace(TRAILING_SPACES, '') : text;
    case 'case-insensitive':
      return foldCaseInsensitive(text);
  }
}

/** Compares two strings under `collation`. */
export function compareStrings(a: string, b: string, collation: Collation): number {
  if (collation === 'binary') return compareCodePoints(a, b);
  return compareCodePoints(collationKey(a, collation), collationKey(b, collation));
}

export type { InListSlot, ParameterizedSql, SqlDialect, ValueSlot } from './parameterized-sql.js';
export { parameterize } from './parameterize.js';
export { ParameterCountError } from './parameterize-error.js';
export { inStartOrder, inStartOrderInPlace, spliceSql, type SqlEdit } from './splice.js';
export { TokenBuffer, TokenKind, lex, type TokenKindValue } from './lexer.js';
export { ParameterizeCache } from './text-cache.js';
export { MemoKey, TextMemo, memoOf, lexedOf, parameterStarts, firstParameterFrom, type LexedText } from './text-memo.js';

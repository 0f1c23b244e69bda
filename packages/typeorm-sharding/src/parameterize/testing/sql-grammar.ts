/**
 * A small random SQL grammar for property tests of the parameterizer. A generated
 * *shape* fixes the statement's structure; an *instance* fills it with values, IN-list
 * lengths, whitespace and comments, and records where each value must be found.
 */
import fc from 'fast-check';
import type { SqlDialect } from '../parameterized-sql.js';

/** A value as written in the text, with what the parameterizer must report for it. */
export interface GeneratedValue {
  readonly text: string;
  /** Decoded value; for a `?` the parameter passed for it. */
  readonly value: unknown;
  readonly isParam: boolean;
}

/** Where a value ended up in the rendered text. */
export interface PlacedValue extends GeneratedValue {
  readonly start: number;
  readonly end: number;
}

export type ShapeToken =
  | { readonly t: 'code'; readonly text: string }
  | { readonly t: 'ident'; readonly name: string; readonly bare: boolean }
  | { readonly t: 'value' }
  | { readonly t: 'list' };

/** A statement structure with holes for values and IN lists. */
export interface Shape {
  readonly verb: 'SELECT' | 'INSERT' | 'UPDATE' | 'DELETE';
  readonly tokens: readonly ShapeToken[];
}

/** A rendered statement and what it must parameterize to. */
export interface Instance {
  readonly sql: string;
  readonly parameters: unknown[];
  /** Values outside IN lists, in text order. */
  readonly slots: PlacedValue[];
  /** IN lists, in text order. */
  readonly lists: { open: number; close: number; items: PlacedValue[] }[];
}

/** Choices an instance makes, drawn once per hole. */
export interface Fill {
  readonly values: GeneratedValue[][];
  readonly separators: string[];
}

const code = (text: string): ShapeToken => ({ t: 'code', text });
const value: ShapeToken = { t: 'value' };
const list: ShapeToken = { t: 'list' };

// Characters that must never confuse the lexer inside quotes and comments.
const NASTY = ['?', "'", '"', '`', '(', ')', ',', 'IN (', ' IN (?, ?)', '--', '#', '/*', '\\', ' ', 'é', '中', 'x', 'NULL', '1', '-5'];

const nastyText = (maxLength: number) =>
  fc.array(fc.constantFrom(...NASTY), { maxLength }).map((parts) => parts.join(''));

const identName = fc.oneof(
  fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,8}$/),
  nastyText(4).map((s) => 'c' + s.replaceAll('\\', '/')),
);

const ident: fc.Arbitrary<ShapeToken> = fc.oneof(
  identName.map((name) => ({ t: 'ident' as const, name, bare: false })),
  fc.stringMatching(/^[a-z][a-z0-9]{0,5}$/).map((s) => ({ t: 'ident' as const, name: 'c_' + s, bare: true })),
);

const columnRef: fc.Arbitrary<ShapeToken[]> = fc.oneof(
  ident.map((c) => [c]),
  fc.tuple(ident, ident).map(([a, c]) => [a, code('.'), c]),
);

const comparison = fc.constantFrom('=', '<>', '>=', '<', '!=');

const condition: fc.Arbitrary<ShapeToken[]> = fc.letrec<{ cond: ShapeToken[] }>((tie) => ({
  cond: fc.oneof(
    { depthSize: 'small', maxDepth: 3, withCrossShrink: true },
    fc.tuple(columnRef, comparison).map(([c, op]) => [...c, code(op), value]),
    fc.tuple(columnRef, fc.boolean()).map(([c, not]) => [...c, ...(not ? [code('NOT')] : []), code('IN'), list]),
    fc.tuple(columnRef, fc.boolean()).map(([c, not]) => [...c, code('IS'), ...(not ? [code('NOT')] : []), code('NULL')]),
    fc.tuple(columnRef, ident, columnRef, columnRef).map(([c, t, s, w]) => [
      ...c, code('IN'), code('('), code('SELECT'), ...s, code('FROM'), t, code('WHERE'), ...w, code('='), value, code(')'),
    ]),
    // not an IN list: one item is an expression
    fc.tuple(columnRef, columnRef).map(([c, d]) => [...c, code('IN'), code('('), value, code(','), ...d, code(')')]),
    fc.tuple(columnRef).map(([c]) => [...c, code('LIKE'), value]),
    fc.tuple(tie('cond'), fc.constantFrom('AND', 'OR'), tie('cond')).map(([a, op, b]) => [
      code('('), ...a, code(op), ...b, code(')'),
    ]),
  ),
})).cond;

const selectItem: fc.Arbitrary<ShapeToken[]> = fc.oneof(
  fc.tuple(columnRef, ident).map(([c, a]) => [...c, code('AS'), a]),
  columnRef,
  ident.map((a) => [value, code('AS'), a]),
  ident.map((a) => [code('COUNT'), code('('), code('*'), code(')'), code('AS'), a]),
);

function joinWith(items: ShapeToken[][], sep: ShapeToken): ShapeToken[] {
  return items.flatMap((item, i) => (i === 0 ? item : [sep, ...item]));
}

const whereClause = fc.option(condition, { nil: undefined }).map((c) => (c ? [code('WHERE'), ...c] : []));

const selectShape: fc.Arbitrary<Shape> = fc
  .record({
    items: fc.array(selectItem, { minLength: 1, maxLength: 4 }),
    table: ident,
    alias: fc.option(ident, { nil: undefined }),
    where: whereClause,
    order: fc.option(fc.tuple(columnRef, fc.constantFrom('ASC', 'DESC')), { nil: undefined }),
    limit: fc.constantFrom(0, 1, 2),
  })
  .map(({ items, table, alias, where, order, limit }) => ({
    verb: 'SELECT' as const,
    tokens: [
      code('SELECT'),
      ...joinWith(items, code(',')),
      code('FROM'),
      table,
      ...(alias ? [alias] : []),
      ...where,
      ...(order ? [code('ORDER'), code('BY'), ...order[0], code(order[1])] : []),
      ...(limit > 0 ? [code('LIMIT'), value] : []),
      ...(limit > 1 ? [code('OFFSET'), value] : []),
    ],
  }));

const insertShape: fc.Arbitrary<Shape> = fc
  .record({
    table: ident,
    columns: fc.array(ident, { minLength: 1, maxLength: 3 }),
    rows: fc.integer({ min: 1, max: 3 }),
    defaults: fc.array(fc.boolean(), { minLength: 9, maxLength: 9 }),
  })
  .map(({ table, columns, rows, defaults }) => {
    const row = (r: number): ShapeToken[] => [
      code('('),
      ...joinWith(columns.map((_, c) => [defaults[(r * 3 + c) % 9] ? code('DEFAULT') : value]), code(',')),
      code(')'),
    ];
    return {
      verb: 'INSERT' as const,
      tokens: [
        code('INSERT'), code('INTO'), table, code('('), ...joinWith(columns.map((c) => [c]), code(',')), code(')'),
        code('VALUES'), ...joinWith(Array.from({ length: rows }, (_, r) => row(r)), code(',')),
      ],
    };
  });

const updateShape: fc.Arbitrary<Shape> = fc
  .record({ table: ident, sets: fc.array(ident, { minLength: 1, maxLength: 3 }), where: whereClause })
  .map(({ table, sets, where }) => ({
    verb: 'UPDATE' as const,
    tokens: [code('UPDATE'), table, code('SET'), ...joinWith(sets.map((c) => [c, code('='), value]), code(',')), ...where],
  }));

const deleteShape: fc.Arbitrary<Shape> = fc
  .record({ table: ident, where: whereClause })
  .map(({ table, where }) => ({ verb: 'DELETE' as const, tokens: [code('DELETE'), code('FROM'), table, ...where] }));

/** Random statement shapes; `selectOnly` restricts them to SELECT. */
export function shapeArb(selectOnly = false): fc.Arbitrary<Shape> {
  return selectOnly ? selectShape : fc.oneof(selectShape, selectShape, insertShape, updateShape, deleteShape);
}

function encodeString(raw: string, dialect: SqlDialect, choices: readonly boolean[]): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    const alt = choices[i % choices.length] ?? false;
    if (ch === "'") out += dialect === 'mysql' && alt ? "\\'" : "''";
    else if (ch === '\\') out += dialect === 'mysql' ? '\\\\' : '\\';
    else if (ch === '\n' && dialect === 'mysql' && alt) out += '\\n';
    else out += ch;
  }
  return out;
}

/** One value as it may be written: `?`, a number, a string or NULL. */
export function valueArb(dialect: SqlDialect): fc.Arbitrary<GeneratedValue> {
  const options: fc.Arbitrary<GeneratedValue>[] = [
    fc.oneof(fc.integer(), fc.string({ maxLength: 4 })).map((p) => ({ text: '?', value: p, isParam: true })),
    fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map((n) => ({ text: String(n), value: String(n), isParam: false })),
    fc
      .tuple(fc.nat(99999), fc.nat(999), fc.constantFrom('', 'e3', 'E-2'), fc.boolean())
      .map(([a, b, exp, neg]) => {
        const text = `${neg ? '-' : ''}${a}.${b}${exp}`;
        return { text, value: text, isParam: false };
      }),
    fc
      .tuple(fc.array(fc.constantFrom(...NASTY, '\n'), { maxLength: 6 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }))
      .map(([parts, choices]) => {
        const raw = parts.join('');
        return { text: `'${encodeString(raw, dialect, choices)}'`, value: raw, isParam: false };
      }),
    fc.constant({ text: 'NULL', value: null, isParam: false }),
  ];
  if (dialect === 'mysql') {
    // MySQL also writes strings in double quotes
    options.push(
      fc.array(fc.constantFrom(...NASTY), { maxLength: 5 }).map((parts) => {
        const raw = parts.join('');
        const text = '"' + raw.replaceAll('\\', '\\\\').replaceAll('"', '""') + '"';
        return { text, value: raw, isParam: false };
      }),
    );
  }
  return fc.oneof(...options);
}

/** Whitespace and comments between two tokens (never empty, never ending a line comment early). */
export function separatorArb(dialect: SqlDialect): fc.Arbitrary<string> {
  const comment = nastyText(4).map((s) => {
    while (s.includes('*/')) s = s.replaceAll('*/', '*');
    return s;
  });
  const options = [
    fc.constantFrom(' ', '  ', '\n', '\t ', ' \r\n '),
    comment.map((c) => ` /*${c}*/ `),
    comment.map((c) => `/*${c}*/`),
    comment.map((c) => ` -- ${c}\n`),
  ];
  if (dialect === 'mysql') options.push(comment.map((c) => ` #${c}\n`));
  return fc.oneof(...options);
}

function quoteIdent(name: string, dialect: SqlDialect, useBacktick: boolean): string {
  if (dialect === 'mysql' || useBacktick) return '`' + name.replaceAll('`', '``') + '`';
  return '"' + name.replaceAll('"', '""') + '"';
}

/** Counts the holes of a shape: value holes, list holes and gaps between tokens. */
function holes(shape: Shape): { values: number; lists: number; gaps: number } {
  let values = 0;
  let lists = 0;
  for (const token of shape.tokens) {
    if (token.t === 'value') values++;
    else if (token.t === 'list') lists++;
  }
  return { values, lists, gaps: shape.tokens.length + 1 };
}

/** Values, IN-list items and separators for one instance of `shape`. */
export function fillArb(shape: Shape, dialect: SqlDialect): fc.Arbitrary<Fill> {
  const h = holes(shape);
  const v = valueArb(dialect);
  return fc.record({
    values: fc.tuple(
      ...Array.from({ length: h.values }, () => v.map((x) => [x])),
      ...Array.from({ length: h.lists }, () => fc.array(v, { minLength: 1, maxLength: 7 })),
    ),
    separators: fc.array(separatorArb(dialect), { minLength: h.gaps * 2, maxLength: h.gaps * 2 }),
  });
}

/** Writes `shape` with `fill`, recording where every value lands. */
export function render(shape: Shape, fill: Fill, dialect: SqlDialect): Instance {
  const h = holes(shape);
  let sql = '';
  let gap = 0;
  let valueHole = 0;
  let listHole = h.values;
  const parameters: unknown[] = [];
  const slots: PlacedValue[] = [];
  const lists: Instance['lists'] = [];
  const place = (v: GeneratedValue): PlacedValue => {
    const start = sql.length;
    sql += v.text;
    if (v.isParam) parameters.push(v.value);
    return { ...v, start, end: sql.length };
  };
  const separator = () => fill.separators[gap++ % fill.separators.length]!;
  sql += separator();
  for (const token of shape.tokens) {
    switch (token.t) {
      case 'code':
        sql += token.text;
        break;
      case 'ident':
        sql += token.bare ? token.name : quoteIdent(token.name, dialect, token.name.length % 3 === 0);
        break;
      case 'value':
        slots.push(place(fill.values[valueHole++]![0]!));
        break;
      case 'list': {
        const open = sql.length;
        sql += '(';
        const items: PlacedValue[] = [];
        for (const [k, v] of fill.values[listHole++]!.entries()) {
          if (k > 0) sql += ',' + (k % 2 === 0 ? separator() : '');
          items.push(place(v));
        }
        lists.push({ open, close: sql.length, items });
        sql += ')';
        break;
      }
    }
    sql += separator();
  }
  return { sql, parameters, slots, lists };
}

/** The shape with its `n`-th identifier (mod the count) renamed. */
export function renameIdent(shape: Shape, n: number): Shape {
  const positions = shape.tokens.flatMap((token, i) => (token.t === 'ident' ? [i] : []));
  const at = positions[n % positions.length]!;
  return {
    verb: shape.verb,
    tokens: shape.tokens.map((token, i) =>
      i === at && token.t === 'ident' ? { ...token, name: token.name + 'z' } : token,
    ),
  };
}

/**
 * The SQL type of an expression of a SELECT, as far as the merge needs it: how its values
 * order (sort keys, MIN/MAX, GROUP BY), and what class a value is when the merge computes
 * with it (`SUM(x) / COUNT(*)`). Column types come from the entity metadata; functions and
 * operators are typed as MySQL / SQLite type them. `unknown` makes the caller refuse rather
 * than guess.
 */
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import type { SqlDialect } from '../../parameterize/index.js';
import type { ShardingRules } from '../../rules/index.js';
import { resolveColumn } from '../nodes/resolve-column.js';
import type { SelectNode, SqlNode } from '../nodes/sql-node.js';

/** What the planner knows about an expression's values (and the table column it is, when it is one). */
export type ExprType = TypeKind & { readonly column?: ColumnMetadata };

type TypeKind =
  /**
   * Numbers: `int` (integers, booleans, COUNT), `decimal` (exact; `scale` when known), `real`
   * (FLOAT / DOUBLE). `inexact`: a number whose class is not known (arithmetic with a value
   * slot): enough to order it, not to compute with it.
   */
  | { readonly kind: 'number'; readonly class: 'int' | 'decimal' | 'real'; readonly scale?: number; readonly inexact?: boolean }
  /** Text (ordered by the server's collation weights on MySQL, code points on SQLite unless the column says otherwise). */
  | { readonly kind: 'text' }
  /** DATE, DATETIME, TIMESTAMP values. */
  | { readonly kind: 'temporal' }
  /** A table column whose own type decides its order (ENUM, SET, BIT, TIME, binary, JSON …). */
  | { readonly kind: 'column'; readonly column: ColumnMetadata }
  /** NULL itself. */
  | { readonly kind: 'null' }
  /** SQLite: values order by storage class (numbers, then text, then blobs), whatever the expression. */
  | { readonly kind: 'dynamic' }
  | { readonly kind: 'unknown' };

const INT: ExprType = { kind: 'number', class: 'int' };
const REAL: ExprType = { kind: 'number', class: 'real' };
const TEXT: ExprType = { kind: 'text' };
const TEMPORAL: ExprType = { kind: 'temporal' };
const UNKNOWN: ExprType = { kind: 'unknown' };
const INEXACT: ExprType = { kind: 'number', class: 'real', inexact: true };

const INT_TYPES = /^(tinyint|smallint|mediumint|int|integer|bigint|int2|int4|int8|boolean|bool|year)$/;
const DECIMAL_TYPES = /^(decimal|numeric|dec|fixed)$/;
const REAL_TYPES = /^(float|double|real|double precision)$/;
const TEXT_TYPES = /^(char|varchar|nchar|nvarchar|national char|national varchar|character|character varying|tinytext|text|mediumtext|longtext|uuid|simple-array|simple-json|string)$/;
const TEMPORAL_TYPES = /^(date|datetime|timestamp)$/;

/** TypeORM's column type as a lower-case name (`Number` → `int`, `String` → `varchar`, …). */
export function columnTypeName(column: ColumnMetadata): string {
  const raw = column.type;
  if (typeof raw === 'string') return raw.toLowerCase();
  if (raw === Number) return 'int';
  if (raw === String) return 'varchar';
  if (raw === Date) return 'datetime';
  if (raw === Boolean) return 'boolean';
  return '';
}

/** The type of a table column. */
export function typeOfColumn(column: ColumnMetadata, dialect: SqlDialect): ExprType {
  if (dialect === 'sqlite') return column.collation ? { kind: 'column', column } : { kind: 'dynamic' };
  const name = columnTypeName(column);
  if (INT_TYPES.test(name)) return INT;
  if (DECIMAL_TYPES.test(name)) return { kind: 'number', class: 'decimal', scale: column.scale ?? 0 };
  if (REAL_TYPES.test(name)) return REAL;
  if (TEXT_TYPES.test(name)) return TEXT;
  if (TEMPORAL_TYPES.test(name)) return TEMPORAL;
  return { kind: 'column', column };
}

const NUMERIC_FUNCTIONS = new Set([
  'CHAR_LENGTH', 'CHARACTER_LENGTH', 'LENGTH', 'OCTET_LENGTH', 'BIT_LENGTH', 'LOCATE', 'INSTR', 'POSITION', 'ASCII', 'ORD',
  'FIELD', 'FIND_IN_SET', 'YEAR', 'MONTH', 'DAY', 'DAYOFMONTH', 'DAYOFWEEK', 'DAYOFYEAR', 'WEEKDAY', 'HOUR', 'MINUTE', 'SECOND',
  'WEEK', 'QUARTER', 'DATEDIFF', 'TIMESTAMPDIFF', 'TO_DAYS', 'CRC32', 'BIT_COUNT', 'ISNULL', 'STRCMP', 'SIGN', 'UNICODE',
]);
const REAL_FUNCTIONS = new Set(['POW', 'POWER', 'SQRT', 'EXP', 'LN', 'LOG', 'LOG2', 'LOG10', 'SIN', 'COS', 'TAN', 'ASIN', 'ACOS', 'ATAN', 'ATAN2', 'COT', 'RAND', 'PI', 'DEGREES', 'RADIANS']);
const TEXT_FUNCTIONS = new Set([
  'CONCAT', 'CONCAT_WS', 'LOWER', 'LCASE', 'UPPER', 'UCASE', 'SUBSTRING', 'SUBSTR', 'MID', 'LEFT', 'RIGHT', 'TRIM', 'LTRIM', 'RTRIM',
  'REPLACE', 'LPAD', 'RPAD', 'REVERSE', 'REPEAT', 'SPACE', 'FORMAT', 'HEX', 'MD5', 'SHA1', 'SHA2', 'INSERT', 'ELT', 'DATE_FORMAT',
  'MONTHNAME', 'DAYNAME', 'QUOTE', 'PRINTF', 'CHAR', 'SOUNDEX', 'TYPEOF',
]);
const TEMPORAL_FUNCTIONS = new Set(['DATE', 'NOW', 'CURDATE', 'CURRENT_DATE', 'CURRENT_TIMESTAMP', 'SYSDATE', 'DATE_ADD', 'DATE_SUB', 'ADDDATE', 'SUBDATE', 'FROM_UNIXTIME', 'STR_TO_DATE', 'LAST_DAY', 'MAKEDATE', 'TIMESTAMP']);
const BRANCHING = new Set(['COALESCE', 'IFNULL', 'GREATEST', 'LEAST', 'IF', 'IIF', 'NULLIF']);
const ARITHMETIC_OPS = new Set(['+', '-', '*', '/', '%', 'MOD', 'DIV']);
const COMPARISON_OPS = new Set(['=', '<>', '!=', '<', '<=', '>', '>=', '<=>', 'AND', 'OR', 'XOR', '&&', 'IS', 'IS NOT', 'IN', 'NOT IN', 'BETWEEN', 'NOT BETWEEN', 'LIKE', 'NOT LIKE', 'REGEXP', 'RLIKE', 'NOT REGEXP']);

/** The type of a value computed from a column (no longer the column itself, whose order may be keyed). */
function withoutColumn(type: ExprType): ExprType {
  if (type.kind === 'column') return UNKNOWN;
  const { column: _column, ...rest } = type;
  return rest as ExprType;
}

/** Combines the types of the branches of CASE / COALESCE / IF / GREATEST (MySQL's type aggregation). */
export function combineExprTypes(types: readonly ExprType[]): ExprType {
  const known = types.filter((t) => t.kind !== 'null').map(withoutColumn);
  if (known.length === 0) return { kind: 'null' };
  if (known.some((t) => t.kind === 'dynamic')) return { kind: 'dynamic' };
  if (known.every((t) => t.kind === 'number')) {
    const numbers = known as Extract<ExprType, { kind: 'number' }>[];
    if (numbers.some((t) => t.class === 'real')) return REAL;
    if (numbers.some((t) => t.class === 'decimal')) {
      const scales = numbers.map((t) => t.scale);
      return { kind: 'number', class: 'decimal', ...(scales.every((s) => s !== undefined) ? { scale: Math.max(...(scales as number[])) } : {}) };
    }
    return INT;
  }
  if (known.every((t) => t.kind === 'temporal')) return TEMPORAL;
  if (known.every((t) => t.kind === 'text' || t.kind === 'number')) return TEXT;
  if (known.length === 1) return known[0]!;
  return UNKNOWN;
}

/** Types the expressions of one SELECT (its FROM decides what columns mean). */
export class ExpressionTyper {
  constructor(
    private readonly select: SelectNode,
    private readonly rules: ShardingRules,
    private readonly dialect: SqlDialect,
  ) {}

  typeOf(node: SqlNode): ExprType {
    const sqlite = this.dialect === 'sqlite';
    switch (node.kind) {
      case 'column': {
        const column = resolveColumn(node, this.select, this.rules);
        if (!column) return sqlite ? { kind: 'dynamic' } : UNKNOWN;
        const type = typeOfColumn(column, this.dialect);
        // `c COLLATE x` orders by x: only the server knows it (its weights on MySQL).
        return node.collate ? (type.kind === 'text' ? TEXT : type.kind === 'column' ? UNKNOWN : withoutColumn(type)) : { ...type, column };
      }
      case 'literal':
        if (node.value === null) return { kind: 'null' };
        if (sqlite) return { kind: 'dynamic' };
        return typeof node.value === 'string' ? TEXT : INT;
      case 'slot':
        // A value's type is only known per statement.
        return sqlite ? { kind: 'dynamic' } : UNKNOWN;
      case 'aggregate':
        return this.aggregateType(node.name, node.args[0]);
      case 'case':
        return this.combine([...node.branches.map((b) => b.then), ...(node.otherwise ? [node.otherwise] : [])]);
      case 'cast':
        return this.castType(node.target, node.scale);
      case 'unary':
        if (node.op === 'NOT' || node.op === '!') return sqlite ? { kind: 'dynamic' } : INT;
        return withoutColumn(this.typeOf(node.operand));
      case 'binary':
        return this.binaryType(node.op, node.left, node.right);
      case 'function':
        return this.functionType(node.name, node.args);
      default:
        return sqlite ? { kind: 'dynamic' } : UNKNOWN;
    }
  }

  private combine(nodes: readonly SqlNode[]): ExprType {
    return combineExprTypes(nodes.map((n) => this.typeOf(n)));
  }

  private aggregateType(name: string, arg: SqlNode | undefined): ExprType {
    const sqlite = this.dialect === 'sqlite';
    const argType = arg && arg.kind !== 'star' ? this.typeOf(arg) : UNKNOWN;
    // A number of unknown class (arithmetic with a value slot) stays so through SUM/AVG/MIN/MAX.
    if (argType.kind === 'number' && argType.inexact && ['SUM', 'AVG', 'MIN', 'MAX'].includes(name)) return sqlite ? { kind: 'dynamic' } : INEXACT;
    switch (name) {
      case 'COUNT':
        return INT;
      case 'MIN':
      case 'MAX':
        // The value of a column, not the column: its order is the aggregate's (see `aggregateOrderOf`).
        return argType.kind === 'column' ? UNKNOWN : withoutColumn(argType);
      case 'SUM':
        if (sqlite) return { kind: 'dynamic' };
        if (argType.kind !== 'number') return argType.kind === 'unknown' ? UNKNOWN : REAL;
        if (argType.class === 'real') return REAL;
        if (argType.class === 'int') return { kind: 'number', class: 'decimal', scale: 0 };
        return { kind: 'number', class: 'decimal', ...(argType.scale !== undefined ? { scale: argType.scale } : {}) };
      case 'AVG':
        if (sqlite) return REAL;
        if (argType.kind !== 'number') return argType.kind === 'unknown' ? UNKNOWN : REAL;
        if (argType.class === 'real') return REAL;
        return { kind: 'number', class: 'decimal', scale: (argType.scale ?? 0) + 4 };
      case 'BIT_AND':
      case 'BIT_OR':
      case 'BIT_XOR':
        return INT;
      case 'STD':
      case 'STDDEV':
      case 'STDDEV_POP':
      case 'STDDEV_SAMP':
      case 'VARIANCE':
      case 'VAR_POP':
      case 'VAR_SAMP':
      case 'TOTAL':
        return REAL;
      case 'GROUP_CONCAT':
        return TEXT;
      default:
        return sqlite ? { kind: 'dynamic' } : UNKNOWN;
    }
  }

  private castType(target: string, scale: number | undefined): ExprType {
    const base = target.replace(/\(.*$/, '').trim();
    if (this.dialect === 'sqlite') return { kind: 'dynamic' };
    if (/^(SIGNED|UNSIGNED|INT|INTEGER|SIGNED INTEGER|UNSIGNED INTEGER)$/.test(base)) return INT;
    if (/^(DECIMAL|DEC|NUMERIC)$/.test(base)) return { kind: 'number', class: 'decimal', scale: scale ?? 0 };
    if (/^(DOUBLE|FLOAT|REAL)$/.test(base)) return REAL;
    if (/^(CHAR|NCHAR|VARCHAR)$/.test(base)) return TEXT;
    if (/^(DATE|DATETIME|TIMESTAMP)$/.test(base)) return TEMPORAL;
    return UNKNOWN;
  }

  private binaryType(op: string, left: SqlNode, right: SqlNode): ExprType {
    if (this.dialect === 'sqlite') return { kind: 'dynamic' };
    if (COMPARISON_OPS.has(op)) return INT;
    if (op === 'DIV') return INT;
    const l = this.typeOf(left);
    const r = this.typeOf(right);
    if (l.kind === 'null' || r.kind === 'null') return { kind: 'null' };
    if (!ARITHMETIC_OPS.has(op)) return UNKNOWN;
    // A DOUBLE operand makes the arithmetic DOUBLE whatever the other one is (a value slot, text, a
    // date): without this, a whole-number DOUBLE (`MAX(ratio * ?)` = 250) would be read as an integer.
    if (isKnownReal(l) || isKnownReal(r)) return REAL;
    if (l.kind !== 'number' || r.kind !== 'number') {
      // Arithmetic always yields a number (text takes part as a DOUBLE); its exact class
      // needs both operands' types (a value slot's is only known per statement).
      return INEXACT;
    }
    if (l.inexact || r.inexact) return INEXACT;
    if (l.class === 'real' || r.class === 'real') return REAL;
    switch (op) {
      case '/':
        return { kind: 'number', class: 'decimal', ...(l.scale !== undefined || l.class === 'int' ? { scale: (l.scale ?? 0) + 4 } : {}) };
      case '+':
      case '-':
      case '%':
      case 'MOD':
        if (l.class === 'int' && r.class === 'int') return INT;
        return { kind: 'number', class: 'decimal', ...scaleOf(l, r, Math.max) };
      case '*':
        if (l.class === 'int' && r.class === 'int') return INT;
        return { kind: 'number', class: 'decimal', ...scaleOf(l, r, (a, b) => a + b) };
      default:
        return UNKNOWN;
    }
  }

  private functionType(name: string, args: readonly SqlNode[]): ExprType {
    if (this.dialect === 'sqlite') return { kind: 'dynamic' };
    if (NUMERIC_FUNCTIONS.has(name)) return INT;
    if (REAL_FUNCTIONS.has(name)) return REAL;
    if (TEXT_FUNCTIONS.has(name)) return TEXT;
    if (TEMPORAL_FUNCTIONS.has(name)) return TEMPORAL;
    if (name === 'IF') return this.combine(args.slice(1));
    if (name === 'NULLIF') return args[0] ? withoutColumn(this.typeOf(args[0])) : UNKNOWN;
    if (BRANCHING.has(name)) return this.combine(args);
    if (name === 'ABS' || name === 'ROUND' || name === 'TRUNCATE') {
      const t = args[0] ? withoutColumn(this.typeOf(args[0])) : UNKNOWN;
      return name === 'ABS' || t.kind !== 'number' || t.class !== 'decimal' ? t : { kind: 'number', class: 'decimal' };
    }
    if (name === 'FLOOR' || name === 'CEIL' || name === 'CEILING') {
      const t = args[0] ? this.typeOf(args[0]) : UNKNOWN;
      return t.kind === 'number' && t.class === 'real' ? REAL : t.kind === 'number' ? INT : UNKNOWN;
    }
    return UNKNOWN;
  }
}

function isKnownReal(t: ExprType): boolean {
  return t.kind === 'number' && t.class === 'real' && t.inexact !== true;
}

function scaleOf(l: { scale?: number; class: string }, r: { scale?: number; class: string }, f: (a: number, b: number) => number): { scale?: number } {
  const a = l.class === 'int' ? 0 : l.scale;
  const b = r.class === 'int' ? 0 : r.scale;
  return a !== undefined && b !== undefined ? { scale: f(a, b) } : {};
}

/**
 * How the database orders, groups and takes MIN/MAX of an entity column's values, from the
 * column's TypeORM metadata: the one place that knows each column type's order. Everything
 * here was checked against MariaDB 10.11 and SQLite (better-sqlite3) with the values their
 * drivers return as TypeORM configures them (`test/column-order.test.ts` keeps checking it).
 *
 * Where a driver's value cannot be compared exactly in JavaScript, the merge compares a key
 * the database computes next to it (a derived column): the server then decides the order
 * itself, whatever the driver options (`dateStrings`, `timezone`, JSON parsing) do to the
 * value. Where no exact key exists, the column order is `refused`, and the planner refuses
 * the statement with `UnsupportedShardingError` instead of merging it wrongly.
 */
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import type { Collation } from '../../values/collation.js';
import type { SortKeyType } from '../../values/compare-values.js';
import type { SqlDialect } from '../../parameterize/index.js';

/** How the merge compares one key: a value of the row, or a key the database computes from it. */
export interface OrderKey {
  readonly type: SortKeyType;
  readonly collation: Collation;
  /**
   * SQL of the key the merge compares instead of the column's value, from the column's SQL
   * text (identifiers in backticks); selected as a derived column. Undefined: the value itself.
   */
  readonly key?: (column: string) => string;
}

/** How the merge compares partial MIN/MAX results of the column. */
export interface ExtremeKey {
  readonly type: SortKeyType;
  readonly collation: Collation;
  /** SQL of the sort key of `fn(column)` on each shard; undefined: compare the partial results themselves. */
  readonly key?: (fn: 'MIN' | 'MAX', column: string) => string;
  /**
   * How the result of `fn(column)` orders when that is not how MIN/MAX compare (ENUM: chosen
   * by text, ordered by position). Undefined: as they compare.
   */
  readonly result?: { readonly type: SortKeyType; readonly collation: Collation; readonly key: (fn: 'MIN' | 'MAX', column: string) => string };
}

/** A column whose values the merge orders exactly as the database does. */
export interface ExactColumnOrder {
  readonly kind: 'exact';
  /** ORDER BY, and GROUP BY / DISTINCT equality (two values are one group exactly when this key ties). */
  readonly order: OrderKey;
  readonly extreme: ExtremeKey;
  /** The rule in words, e.g. "ENUM: declaration position, `col + 0`". */
  readonly rule: string;
}

/** A column whose order the merge cannot reproduce: ordering, grouping or MIN/MAX by it over several shards is refused. */
export interface RefusedColumnOrder {
  readonly kind: 'refused';
  /** Why, and what to do instead (becomes the `UnsupportedShardingError` message). */
  readonly reason: string;
}

export type ColumnOrder = ExactColumnOrder | RefusedColumnOrder;

/** What decides a column's order. */
export interface ColumnFacts {
  readonly engine: 'sqlite' | 'mysql' | 'mariadb';
  /** The database type as TypeORM creates it (its driver's `normalizeType`), lower case. */
  readonly type: string;
  readonly collation?: string;
  /** Server version as TypeORM reads it, e.g. `10.11.19`; undefined before connecting. */
  readonly version?: string;
  /** Property name, for messages. */
  readonly name: string;
  /** ENUM / SET labels as the entity declares them (TypeORM's `enum` option). */
  readonly labels?: readonly string[];
}

/** The order of values that come from no entity column (expressions, aggregates): compared by their JavaScript types. */
export const UNTYPED_ORDER: ExactColumnOrder = {
  kind: 'exact',
  order: { type: 'auto', collation: 'binary' },
  extreme: { type: 'auto', collation: 'binary' },
  rule: 'no column type: by JavaScript value',
};

/** Numbers, compared by value (mysql2's DECIMAL and BIGINT text included). */
export const NUMERIC_ORDER: ExactColumnOrder = {
  kind: 'exact',
  order: { type: 'numeric', collation: 'binary' },
  extreme: { type: 'numeric', collation: 'binary' },
  rule: 'aggregate: a number',
};

/**
 * The order of an aggregate's results, e.g. for `ORDER BY total` where `total` is `SUM(x)`:
 * COUNT, SUM and AVG are numbers (mysql2 returns DECIMAL sums and averages as strings, which
 * must not be compared as text). On MySQL, MIN/MAX(x) order as x does, by the key of each
 * shard's result when x has one (the key of `fn(argText)`, whatever text it is asked for).
 * SQLite computes MIN/MAX under x's collation but orders their results as BINARY (an
 * aggregate is not a column), as checked with better-sqlite3.
 */
export function aggregateOrderOf(fn: string, arg: ColumnOrder, argText: string | undefined, dialect: SqlDialect): ColumnOrder {
  if (fn === 'COUNT' || fn === 'SUM' || fn === 'AVG') return NUMERIC_ORDER;
  if (fn !== 'MIN' && fn !== 'MAX') return UNTYPED_ORDER;
  if (arg.kind === 'refused') return arg;
  if (dialect === 'sqlite') return { ...UNTYPED_ORDER, extreme: arg.extreme, rule: `${fn}: SQLite storage classes, BINARY text` };
  const { type, collation, key } = arg.extreme.result ?? arg.extreme;
  const order: OrderKey = key === undefined ? { type, collation } : argText === undefined ? UNTYPED_ORDER.order : { type, collation, key: () => key(fn, argText) };
  return { kind: 'exact', order, extreme: arg.extreme, rule: `${fn} of: ${arg.rule}` };
}

/** How the database orders, groups and takes MIN/MAX of `column`'s values. */
export function columnOrderOf(column: ColumnMetadata, dialect: SqlDialect): ColumnOrder {
  return orderOfFacts(columnFactsOf(column, dialect));
}

/** The order of a column described by `facts`. */
export function orderOfFacts(facts: ColumnFacts): ColumnOrder {
  if (facts.engine === 'sqlite') return sqliteOrder(facts);
  const family = MYSQL_FAMILIES[facts.type];
  if (family === undefined) return refused(facts, `its type "${facts.type}" has no known order`);
  return MYSQL_ORDERS[family](facts);
}

interface DriverLike {
  readonly options?: { readonly type?: string };
  readonly version?: string;
  normalizeType(column: { type?: unknown; length?: unknown; precision?: unknown; scale?: unknown }): string;
}

/** Reads the facts from the column and the data source's driver (the stubs of unit tests have none). */
export function columnFactsOf(column: ColumnMetadata, dialect: SqlDialect): ColumnFacts {
  const driver = (column.entityMetadata?.connection as { driver?: DriverLike } | undefined)?.driver;
  const type = (driver ? String(driver.normalizeType(column)) : typeName(column.type)).toLowerCase();
  const version = driver?.version;
  const mariadb = driver?.options?.type === 'mariadb' || Number(version?.split('.')[0]) >= 10;
  return {
    engine: dialect === 'sqlite' ? 'sqlite' : mariadb ? 'mariadb' : 'mysql',
    type,
    name: column.propertyName ?? column.databaseName,
    ...(column.collation === undefined ? {} : { collation: column.collation }),
    ...(version === undefined ? {} : { version }),
    ...(Array.isArray(column.enum) ? { labels: column.enum.map(String) } : {}),
  };
}

/** TypeORM's spelling of a column type given as a constructor (what its drivers do, without a driver). */
function typeName(type: unknown): string {
  if (typeof type === 'string') return type === 'uuid' ? 'varchar' : type;
  if (type === Number) return 'int';
  if (type === String) return 'varchar';
  if (type === Date) return 'datetime';
  if (type === Boolean) return 'tinyint';
  if (typeof type === 'function' && type.prototype instanceof Uint8Array) return 'blob';
  return '';
}

function refused(facts: ColumnFacts, why: string, instead = 'order by a scalar expression of it instead, or keep the query on one shard'): RefusedColumnOrder {
  return {
    kind: 'refused',
    reason: `ORDER BY, GROUP BY, DISTINCT or MIN/MAX over several shards of column "${facts.name}": ${why}, so the shards' results cannot be merged exactly; ${instead}`,
  };
}

// --- SQLite ------------------------------------------------------------------------------

const SQLITE_COLLATIONS: Readonly<Record<string, Collation>> = { BINARY: 'binary', NOCASE: 'nocase', RTRIM: 'rtrim' };

/**
 * SQLite orders by storage class, whatever the declared type (NULL < INTEGER/REAL compared
 * as numbers < TEXT under the column's collation < BLOB byte-wise), and better-sqlite3
 * returns exactly those classes (number/bigint, string, Buffer): `auto` is SQLite's order.
 * TypeORM stores dates as text, booleans as 0/1 and JSON as text, so they order as those.
 */
function sqliteOrder(facts: ColumnFacts): ColumnOrder {
  const name = (facts.collation ?? 'BINARY').toUpperCase();
  const collation = SQLITE_COLLATIONS[name];
  if (collation === undefined) return refused(facts, `its collation "${facts.collation}" is not one of SQLite's built-in BINARY, NOCASE, RTRIM`);
  const key = { type: 'auto', collation } as const;
  return { kind: 'exact', order: key, extreme: key, rule: `SQLite storage classes, text under ${name}` };
}

// --- MySQL / MariaDB ---------------------------------------------------------------------

type MysqlFamily = 'number' | 'float' | 'bit' | 'temporal' | 'timestamp' | 'text' | 'json' | 'enum' | 'binary' | 'uuid' | 'inet4' | 'inet6' | 'spatial' | 'vector';

/** Every type TypeORM's MySQL driver accepts (after `normalizeType`, and its synonyms), by how it orders. */
const MYSQL_FAMILIES: Readonly<Record<string, MysqlFamily>> = {
  ...familyOf('number', 'tinyint', 'smallint', 'mediumint', 'int', 'integer', 'bigint', 'bool', 'boolean', 'decimal', 'dec', 'numeric', 'fixed', 'double', 'double precision', 'real', 'year'),
  ...familyOf('float', 'float'),
  ...familyOf('bit', 'bit'),
  ...familyOf('temporal', 'date', 'datetime', 'time'),
  ...familyOf('timestamp', 'timestamp'),
  ...familyOf('text', 'char', 'nchar', 'national char', 'varchar', 'nvarchar', 'national varchar', 'tinytext', 'text', 'mediumtext', 'longtext', 'simple-array', 'simple-json'),
  ...familyOf('json', 'json'),
  ...familyOf('enum', 'enum', 'simple-enum', 'set'),
  ...familyOf('binary', 'binary', 'varbinary', 'tinyblob', 'blob', 'mediumblob', 'longblob'),
  ...familyOf('uuid', 'uuid'),
  ...familyOf('inet4', 'inet4'),
  ...familyOf('inet6', 'inet6'),
  ...familyOf('spatial', 'geometry', 'point', 'linestring', 'polygon', 'multipoint', 'multilinestring', 'multipolygon', 'geometrycollection'),
  ...familyOf('vector', 'vector'),
};

function familyOf(family: MysqlFamily, ...types: string[]): Record<string, MysqlFamily> {
  return Object.fromEntries(types.map((type) => [type, family]));
}

/**
 * The text sort key: the collation's pad weight, then `WEIGHT_STRING(c)` without trailing
 * pad weights (format and why in `values/mysql-weight.ts`). `LEFT(c, 0) = ' '` is true
 * exactly under a PAD SPACE collation ('' equals ' ' only when padded); `LEFT(c, 0)` keeps
 * the column's collation, so the server reports the pad of whatever collation the column has.
 */
export function mysqlWeightKey(c: string): string {
  const pad = `IF(LEFT(${c}, 0) = ' ', WEIGHT_STRING(LEFT(${c}, 0) AS CHAR(1)), '')`;
  return `CONCAT(CHAR(LENGTH(${pad})), ${pad}, TRIM(TRAILING ${pad} FROM WEIGHT_STRING(${c})))`;
}

const numericValue = { type: 'numeric', collation: 'binary' } as const;
const bytesValue = { type: 'binary', collation: 'binary' } as const;
const weights = { type: 'mysql-weight', collation: 'binary' } as const;

/** A key the server computes per value, strictly increasing with the column's order: MIN/MAX of it is the key of MIN/MAX. */
function monotoneKey(type: SortKeyType, key: (c: string) => string, rule: string): ExactColumnOrder {
  return {
    kind: 'exact',
    order: { type, collation: 'binary', key },
    extreme: { type, collation: 'binary', key: (fn, c) => `${fn}(${key(c)})` },
    rule,
  };
}

const MYSQL_ORDERS: Readonly<Record<MysqlFamily, (facts: ColumnFacts) => ColumnOrder>> = {
  // mysql2 returns integers as numbers and BIGINT/DECIMAL as exact strings (TypeORM sets
  // supportBigNumbers and bigNumberStrings); DOUBLE prints with round-trip precision.
  number: () => ({ kind: 'exact', order: numericValue, extreme: numericValue, rule: 'numbers (BIGINT/DECIMAL exact strings)' }),
  // FLOAT prints with 6 significant digits: 1.0000001 and 1.0000002 both read back as 1 but
  // order and group apart. `+ 0e0` gives the exact double (also of MIN/MAX, for ORDER BY them).
  float: () => monotoneKey('numeric', (c) => `(${c} + 0e0)`, 'FLOAT: exact value, `col + 0e0` (it prints with 6 digits)'),
  // BIT(n) values are big-endian n-bit Buffers: byte order is numeric order. MIN/MAX of a
  // BIT column return the decimal digits as bytes (`'513'` < `'2'` byte-wise), so partial
  // results are compared by their number.
  // A BIT value arrives as its big-endian bytes, or as a number where the server went through
  // a temporary table (SELECT DISTINCT, GROUP BY): both compare as the unsigned number.
  bit: () => ({
    kind: 'exact',
    order: numericValue,
    extreme: { ...numericValue, key: (fn, c) => `${fn}(${c} + 0)` },
    rule: 'BIT: the unsigned number (big-endian bytes or a number); MIN/MAX by `col + 0`',
  }),
  // JavaScript Dates keep milliseconds (DATETIME(6) values 1 µs apart tie), live in the
  // process's time zone (a local DST gap reorders), and TIME comes back as text such as
  // '-01:00:00' or '838:59:59'. `col + 0` is the server's own number (YYYYMMDDhhmmss.ffffff):
  // exact for every precision, zero dates and negative times.
  temporal: () => monotoneKey('numeric', (c) => `(${c} + 0)`, 'DATE/DATETIME/TIME: `col + 0` (every fraction digit)'),
  // A TIMESTAMP is stored in UTC and shown in the session time zone, where a DST fall-back
  // hour repeats: the UTC seconds are its order.
  timestamp: () => monotoneKey('numeric', (c) => `UNIX_TIMESTAMP(${c})`, 'TIMESTAMP: `UNIX_TIMESTAMP(col)` (UTC)'),
  text: () => ({
    kind: 'exact',
    order: { ...weights, key: mysqlWeightKey },
    // The key of each shard's MIN/MAX value, not MIN/MAX of keys: under PAD SPACE the
    // byte-wise least weight is not always the least string.
    extreme: { ...weights, key: (fn, c) => mysqlWeightKey(`${fn}(${c})`) },
    rule: 'text: the collation\'s weights with its pad (`WEIGHT_STRING`), any collation',
  }),
  // MariaDB's JSON is LONGTEXT utf8mb4_bin: text. MySQL's is a binary type with its own
  // comparison rules (and mysql2 parses it into objects).
  json: (facts) =>
    facts.engine === 'mariadb'
      ? MYSQL_ORDERS.text(facts)
      : refused(facts, 'MySQL orders JSON documents by its own JSON comparison rules', 'order by a scalar extracted from it (JSON_VALUE / ->>) instead'),
  // ENUM and SET order by their number (declaration position, member bit mask) but MIN/MAX
  // compare their text under the column's collation (checked on MariaDB 10.11: MIN of
  // ENUM('zeta','alpha') is 'alpha'). `col + 0` is the number; equal numbers are equal values.
  // The position could be looked up in the entity's `enum` list instead, saving a column, but
  // the server's number stays right when the table was declared otherwise (a migration that
  // reordered or added labels, `synchronize` off) and for the '' error value (position 0).
  // The only cost is one integer per row.
  //
  // `MIN(col) + 0` is not the number of MIN's value in every plan: MariaDB 10.11 answers 0 (the
  // text read as a number) under GROUP BY the primary key. MIN/MAX's result is numbered from
  // the declared labels instead (FIELD / FIND_IN_SET), where the entity lists them.
  enum: (facts) => ({
    kind: 'exact',
    order: { ...numericValue, key: (c) => `(${c} + 0)` },
    extreme: { ...weights, key: (fn, c) => mysqlWeightKey(`${fn}(${c})`), result: { ...numericValue, key: (fn, c) => labelNumber(`${fn}(${c})`, facts) } },
    rule: 'ENUM/SET: declaration position / bit mask, `col + 0`; MIN/MAX by text weights, their result by position (from the declared labels)',
  }),
  // Buffers compare byte-wise, as BINARY/VARBINARY/BLOB do (binary strings have no pad).
  binary: () => ({ kind: 'exact', order: bytesValue, extreme: bytesValue, rule: 'bytes' }),
  uuid: (facts) => {
    const type = uuidSwapsAll(facts.version) ? 'mariadb-uuid-swap-all' : 'mariadb-uuid';
    const key = { type, collation: 'binary' } as const;
    return { kind: 'exact', order: key, extreme: key, rule: 'MariaDB UUID: stored (group-swapped) order' };
  },
  inet4: () => monotoneKey('binary', (c) => `CAST(${c} AS BINARY(4))`, 'INET4: address bytes'),
  inet6: () => monotoneKey('binary', (c) => `CAST(${c} AS BINARY(16))`, 'INET6: address bytes'),
  spatial: (facts) => refused(facts, 'spatial values have no order the merge can reproduce'),
  vector: (facts) => refused(facts, 'vectors have no order the merge can reproduce'),
};

/** MariaDB before 10.10.6 / 10.11.5 / 11.0.3 / 11.1.2 swaps the groups of every UUID (see `MariadbUuidOrder`). */
function uuidSwapsAll(version: string | undefined): boolean {
  const [major = 0, minor = 0, patch = 0] = (version ?? '').split('.').map(Number);
  if (major !== 10 && major !== 11) return false;
  const fixedAt: Readonly<Record<string, number>> = { '10.10': 6, '10.11': 5, '11.0': 3, '11.1': 2 };
  const fixed = fixedAt[`${major}.${minor}`];
  if (fixed !== undefined) return patch < fixed;
  return major === 10;
}

/** The number of an ENUM / SET value (`value` is SQL), from the declared labels; `value + 0` when they are not known or not plain. */
function labelNumber(value: string, facts: ColumnFacts): string {
  const labels = facts.labels;
  if (!labels || labels.length === 0 || labels.some((l) => /['\\]/.test(l))) return `(${value} + 0)`;
  const quoted = labels.map((l) => `'${l}'`);
  // FIELD and FIND_IN_SET answer 0 for NULL: NULL must stay NULL (it orders first).
  const number = facts.type !== 'set' ? `FIELD(${value}, ${quoted.join(', ')})` : quoted.map((l, i) => `IF(FIND_IN_SET(${l}, ${value}), ${(1n << BigInt(i)).toString()}, 0)`).join(' + ');
  return `IF(${value} IS NULL, NULL, ${number})`;
}

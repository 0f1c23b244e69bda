/**
 * Value semantics every stage may use: how MySQL/MariaDB and SQLite compare, collate and
 * compute values (exact decimals, text collations, weights), and the evaluator of SQL
 * expressions over them. Depends on nothing but the errors and the lexer's value slots.
 */
export type { Row } from './row.js';
export { MergeValueError, showValue } from './value-error.js';
export { collationKey, compareCodePoints, compareStrings, foldCaseInsensitive, type Collation } from './collation.js';
export { compareMysqlWeights } from './mysql-weight.js';
export { compareMariadbUuids, type MariadbUuidOrder } from './mariadb-uuid.js';
export { compareValues, createValueComparator, isSqlNull, type SortKeyType, type ValueComparator } from './compare-values.js';
export {
  addDecimals,
  compareDecimals,
  divideDecimal,
  formatDecimal,
  parseDecimal,
  parseScaledDecimal,
  toScaledDecimal,
  type DecimalParts,
  type ScaledDecimal,
} from './decimal.js';

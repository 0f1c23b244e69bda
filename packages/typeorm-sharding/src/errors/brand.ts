/**
 * Marks errors that count as sharding errors without extending `ShardingError`: a failed
 * physical statement is a TypeORM `QueryFailedError` (see `ShardQueryError`), and a class
 * can have only one parent. Internal: not exported from the package.
 */
export const SHARDING_ERROR_BRAND: unique symbol = Symbol.for('typeorm-sharding.error');

/** Whether `value` carries the brand (on its prototype chain). */
export function isBranded(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[SHARDING_ERROR_BRAND] === true;
}

/** Brands every instance of `target`. */
export function brand(target: { prototype: object }): void {
  Object.defineProperty(target.prototype, SHARDING_ERROR_BRAND, { value: true });
}

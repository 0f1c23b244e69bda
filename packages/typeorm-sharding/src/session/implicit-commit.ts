/** Statements after whose first keyword MySQL commits the open transaction before running them. */
const COMMITTING = new Set(['ALTER', 'CREATE', 'DROP', 'RENAME', 'TRUNCATE', 'GRANT', 'REVOKE', 'LOCK', 'UNLOCK', 'ANALYZE', 'OPTIMIZE', 'REPAIR', 'INSTALL', 'UNINSTALL']);

/**
 * Whether MySQL commits the open transaction implicitly before running this statement (DDL and
 * a few administrative statements; `CREATE` / `DROP TEMPORARY TABLE` do not).
 *
 * @param verb the statement's first keyword, upper case
 */
export function commitsImplicitly(verb: string, sql: string): boolean {
  return COMMITTING.has(verb) && !/^\s*(?:CREATE|DROP)\s+TEMPORARY\b/i.test(sql);
}

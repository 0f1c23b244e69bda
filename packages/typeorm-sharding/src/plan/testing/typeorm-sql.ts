/**
 * One test statement on both dialects, spelled as TypeORM 1.1.1 spells it: on MySQL
 * identifiers in backticks and every value a `?` parameter; on better-sqlite3 identifiers
 * in double quotes and numeric values written into the text (strings, dates and NULLs
 * stay `?` parameters).
 */
import type { SqlDialect } from '../../parameterize/index.js';

/** A statement with its parameters. */
export interface SqlWithParams {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

export const DIALECTS: readonly SqlDialect[] = ['mysql', 'sqlite'];

/**
 * `template` is written the MySQL way (backticks, `?`). For SQLite the backticks become
 * double quotes and every numeric parameter (number or bigint) is written into the text.
 * Text inside single-quoted strings and comments is left alone.
 */
export function typeormSql(template: string, parameters: readonly unknown[], dialect: SqlDialect): SqlWithParams {
  if (dialect === 'mysql') return { sql: template, parameters };
  let sql = '';
  const kept: unknown[] = [];
  let param = 0;
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (c === "'") {
      const end = template.indexOf("'", i + 1);
      sql += template.slice(i, end + 1);
      i = end;
    } else if (c === '/' && template[i + 1] === '*') {
      const end = template.indexOf('*/', i + 2) + 1;
      sql += template.slice(i, end + 1);
      i = end;
    } else if (c === '`') {
      sql += '"';
    } else if (c === '?') {
      const value = parameters[param++];
      if (typeof value === 'number' || typeof value === 'bigint') sql += String(value);
      else {
        sql += '?';
        kept.push(value);
      }
    } else {
      sql += c;
    }
  }
  if (param !== parameters.length) throw new Error(`typeormSql: ${param} placeholders for ${parameters.length} parameters in ${template}`);
  return { sql, parameters: kept };
}

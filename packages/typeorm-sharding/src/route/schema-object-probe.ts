import type { SqlDialect } from '../parameterize/index.js';
import type { SchemaObjectKind } from '../plan/ddl/ddl-target.js';

/**
 * The read that tells whether one shard holds a schema object (index, trigger, view) by
 * name: it returns a row when it does. Used to send `DROP INDEX i` (which names no table)
 * to exactly the shards that have `i`. SQLite compares object names without case, as
 * SQLite itself does; MySQL/MariaDB look in the shard's own database.
 */
export function schemaObjectProbe(dialect: SqlDialect, object: SchemaObjectKind, name: string): { readonly sql: string; readonly parameters: readonly unknown[] } {
  if (dialect === 'sqlite') {
    return { sql: 'SELECT 1 AS found FROM sqlite_master WHERE type = ? AND name = ? COLLATE NOCASE', parameters: [object, name] };
  }
  switch (object) {
    case 'index':
      return { sql: 'SELECT 1 AS found FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND INDEX_NAME = ? LIMIT 1', parameters: [name] };
    case 'trigger':
      return { sql: 'SELECT 1 AS found FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE() AND TRIGGER_NAME = ?', parameters: [name] };
    case 'view':
      return { sql: 'SELECT 1 AS found FROM information_schema.VIEWS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?', parameters: [name] };
  }
}

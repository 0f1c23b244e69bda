import { CrossServerTransactionError } from '../transaction-errors.js';
import { maxAttached, type SqliteDb } from './sqlite-handle.js';

/** One shard file attached to a connection. */
export interface Attachment {
  /** The schema name its tables are named with. */
  readonly schema: string;
  /** Its position in `PRAGMA database_list`, as EXPLAIN's `Transaction` opcodes number databases. */
  readonly seq: number;
}

/**
 * The shard files attached to one shard's connection (the first shard of a transaction that
 * reached them). They stay attached for the next transaction, least recently used first out
 * when SQLite's limit (SQLITE_MAX_ATTACHED) is reached.
 */
export class Attachments {
  private readonly attached = new Map<string, Attachment>();
  private readonly limit: number;

  constructor(private readonly db: SqliteDb) {
    this.limit = maxAttached(db);
  }

  /**
   * Attaches `file` as `schema` (if it is not attached already), making room by detaching files
   * the current transaction does not use (`inUse`).
   */
  attach(schema: string, file: string, inUse: ReadonlySet<string>, shard: string): Attachment {
    const known = this.attached.get(schema);
    if (known) {
      // Most recently used last.
      this.attached.delete(schema);
      this.attached.set(schema, known);
      return known;
    }
    for (const name of this.attached.keys()) {
      if (this.attached.size < this.limit) break;
      if (inUse.has(name)) continue;
      try {
        this.db.prepare(`DETACH DATABASE "${name}"`).run();
        this.attached.delete(name);
      } catch {
        // In use by the open transaction: try the next.
      }
    }
    if (this.attached.size >= this.limit) {
      throw new CrossServerTransactionError(
        `This transaction would span more than ${this.limit + 1} SQLite shard files (SQLite attaches at most ${this.limit} files to one connection, SQLITE_MAX_ATTACHED), reaching shard ${shard}; it cannot commit them atomically. Split it, or set sharding.transactions.crossServer: 'sequential'.`,
        shard,
      );
    }
    this.db.prepare(`ATTACH DATABASE ? AS "${schema}"`).run(file);
    const seq = (this.db.pragma('database_list') as { seq: number; name: string }[]).find((d) => d.name === schema)!.seq;
    const attachment = { schema, seq };
    this.attached.set(schema, attachment);
    return attachment;
  }
}

const registry = new WeakMap<SqliteDb, Attachments>();

/** The attachments of a connection. */
export function attachmentsOf(db: SqliteDb): Attachments {
  let attachments = registry.get(db);
  if (!attachments) registry.set(db, (attachments = new Attachments(db)));
  return attachments;
}

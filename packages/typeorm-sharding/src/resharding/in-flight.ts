import type { Connection } from 'mysql2/promise';
import { rows } from './endpoint.js';

/**
 * The InnoDB transactions open on the server now (other than the caller's), by id. After the
 * fence goes in, a write that passed the trigger before it may still be uncommitted: the
 * source position read before these end would miss it (Vitess #16563).
 */
export async function openTransactions(conn: Connection): Promise<Set<string>> {
  const list = await rows<{ id: string | number }>(conn, 'SELECT trx_id AS id FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id <> CONNECTION_ID()');
  return new Set(list.map((r) => String(r.id)));
}

/**
 * Waits until every transaction of `open` has ended (committed or rolled back). Resolves true
 * when they have, false when `timeoutMs` elapsed first.
 */
export async function waitTransactionsEnded(conn: Connection, open: ReadonlySet<string>, timeoutMs: number, pollMs = 10): Promise<boolean> {
  if (open.size === 0) return true;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = await openTransactions(conn);
    if (![...open].some((id) => now.has(id))) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

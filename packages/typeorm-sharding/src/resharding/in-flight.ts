import type { Connection } from 'mysql2/promise';
import { rows } from './endpoint.js';

/** How long INNODB_TRX must go unread before the server refreshes it (CACHE_MIN_IDLE_TIME, 100 ms), plus a margin. */
export const TRX_CACHE_IDLE_MS = 110;

/**
 * The read-write InnoDB transactions open on the server now (other than the caller's), by id.
 * After the fence goes in, a write that passed the trigger before it may still be uncommitted:
 * the source position read before these end would miss it (Vitess #16563). Read-only
 * transactions (MariaDB shows them with trx_id 0, an id that is not unique) are left out: a
 * write they make later meets the fence, whose triggers read `tsh_fence` with a locking read
 * (the latest committed rows, not their snapshot).
 *
 * INNODB_TRX is a cache that the server refreshes only when it has not been read for 100 ms:
 * polling it faster freezes it (an ended transaction stays listed for ever), hence
 * {@link TRX_CACHE_IDLE_MS} between reads.
 */
export async function openTransactions(conn: Connection): Promise<Set<string>> {
  const list = await rows<{ id: string | number }>(conn, 'SELECT trx_id AS id FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id <> CONNECTION_ID() AND trx_id <> 0');
  return new Set(list.map((r) => String(r.id)));
}

/**
 * Waits until every transaction of `open` has ended (committed or rolled back). Resolves true
 * when they have, false when `timeoutMs` elapsed first.
 */
export async function waitTransactionsEnded(conn: Connection, open: ReadonlySet<string>, timeoutMs: number, pollMs = TRX_CACHE_IDLE_MS): Promise<boolean> {
  if (open.size === 0) return true;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await new Promise((r) => setTimeout(r, pollMs));
    const now = await openTransactions(conn);
    if (![...open].some((id) => now.has(id))) return true;
    if (Date.now() >= deadline) return false;
  }
}

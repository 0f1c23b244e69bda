import type { EntityManager } from 'typeorm';
import type { PhysicalQueryEvent, ShardedDataSource, TransactionStepEvent } from 'typeorm-sharding';
import { ShopOrder, ShopOrderItem, Stock } from './entities.js';

/** The order refused because a product is sold out: thrown inside the transaction, which then rolls back. */
export class OutOfStockError extends Error {}

/**
 * Places an order in one transaction: the order row and its items (on the order's shard) and
 * the stock of every product it takes (a broadcast table: a copy on every shard, so on every
 * server). Across servers this commits with XA; across SQLite shard files as one transaction
 * of attached files. A sold-out product rolls all of it back, everywhere.
 */
export async function placeOrder(ds: ShardedDataSource, id: string, lines: Record<string, number>): Promise<void> {
  await ds.transaction(async (em: EntityManager) => {
    await em.insert(ShopOrder, { id, buyerId: 1 });
    for (const [sku, quantity] of Object.entries(lines)) {
      await em.insert(ShopOrderItem, { orderId: id, sku, quantity });
      await em.decrement(Stock, { sku }, 'quantity', quantity);
      const left = await em.findOneByOrFail(Stock, { sku });
      if (left.quantity < 0) throw new OutOfStockError(`${sku} is sold out (${left.quantity + quantity} left, ${quantity} ordered)`);
    }
  });
}

/** What the demo prints about one order: its statements per shard and the commit's steps. */
export function orderLog(): { physical: (e: PhysicalQueryEvent) => void; step: (e: TransactionStepEvent) => void; print(title: string): void } {
  let lines: string[] = [];
  return {
    physical: (e) => lines.push(`    [${e.shard} on ${e.server}] ${e.sql.length > 110 ? `${e.sql.slice(0, 107)}...` : e.sql}`),
    step: (e) => lines.push(`    -- commit step: ${e.step}${e.server ? ` (${e.server})` : ''}${e.step === 'recorded' ? `, transaction ${e.xid} over ${e.servers.join(', ')}` : ''}`),
    print(title) {
      console.log(`\n  ${title}`);
      for (const line of lines) console.log(line);
      lines = [];
    },
  };
}

import mysql from 'mysql2/promise';
import { crc32, isFencedError, TopologyStore, type GovernedTable, type Placement } from '../../packages/typeorm-sharding/src/index.js';

/**
 * A small world for the mover's tests: servers, a topology store (its own tables, with
 * version 1 written by hand), governed tables, and an "application" that routes each write by
 * the topology it last read and, refused by a fence, re-reads it and retries — what a
 * ShardedDataSource with `sharding.topology` does.
 */
export interface Server {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
}

export const TABLES: readonly GovernedTable[] = [
  { table: 'items', kind: 'sharded', keyColumn: 'id', keyKind: 'integer' },
  { table: 'tags', kind: 'sharded', keyColumn: 'name', keyKind: 'string' },
  { table: 'regions', kind: 'broadcast' },
];

const DDL = [
  "CREATE TABLE IF NOT EXISTS items (id BIGINT PRIMARY KEY, name VARCHAR(40) COLLATE utf8mb4_general_ci NOT NULL, amount DECIMAL(12,2) NULL, note VARCHAR(40) NULL) ENGINE=InnoDB",
  'CREATE TABLE IF NOT EXISTS tags (name VARCHAR(40) PRIMARY KEY, uses INT NOT NULL) ENGINE=InnoDB',
  'CREATE TABLE IF NOT EXISTS regions (code VARCHAR(8) PRIMARY KEY, label VARCHAR(40) NOT NULL) ENGINE=InnoDB',
];

export const bucketOfKey = (key: string | number): number => crc32(Buffer.from(String(key), 'utf8')) % 1024;

export function serverConn(server: Server, database?: string): Promise<mysql.Connection> {
  return mysql.createConnection({ host: server.host, port: server.port, user: server.user, password: server.password, ...(database ? { database } : {}), supportBigNumbers: true, bigNumberStrings: true });
}

/** Creates the shard databases and tables, and the topology store with version 1. */
export async function createWorld(meta: Server, metaDb: string, placement: Placement, servers: readonly Server[]): Promise<void> {
  for (const shard of placement.shards) {
    const server = servers.find((s) => s.name === shard.server)!;
    const c = await serverConn(server);
    await c.query(`DROP DATABASE IF EXISTS \`${shard.database}\``);
    await c.query(`CREATE DATABASE \`${shard.database}\` CHARACTER SET utf8mb4`);
    await c.query(`USE \`${shard.database}\``);
    for (const ddl of DDL) await c.query(ddl);
    await c.query("INSERT INTO regions VALUES ('eu', 'Europe'), ('us', 'America')");
    await c.end();
  }
  const c = await serverConn(meta);
  await c.query(`DROP DATABASE IF EXISTS \`${metaDb}\``);
  // The store's own tables (the same DDL a ShardedDataSource runs), then version 1 by hand.
  await new TopologyStore(c, 'mysql', metaDb).ensureTables();
  await c.query(`INSERT INTO \`${metaDb}\`.tsh_topology (version, document) VALUES (?, ?)`, [placement.version, JSON.stringify(placement)]);
  await c.end();
}

export async function dropWorld(meta: Server, metaDb: string, servers: readonly Server[], databases: readonly string[]): Promise<void> {
  for (const server of servers) {
    const c = await serverConn(server).catch(() => undefined);
    if (!c) continue;
    for (const db of databases) await c.query(`DROP DATABASE IF EXISTS \`${db}\``);
    await c.end();
  }
  const c = await serverConn(meta);
  await c.query(`DROP DATABASE IF EXISTS \`${metaDb}\``);
  await c.end();
}

/** Every write of the application, in the order it was acknowledged (the ledger). */
export type LedgerEntry = { readonly op: 'upsert'; readonly id: number; readonly name: string; readonly amount: string } | { readonly op: 'delete'; readonly id: number };

/**
 * The application: routes `items` writes by the topology it knows, retries fenced writes after
 * re-reading the topology, and records each acknowledged write in the ledger.
 */
export class App {
  placement: Placement;
  readonly ledger: LedgerEntry[] = [];
  fencedRetries = 0;
  private readonly conns = new Map<string, mysql.Connection>();

  private constructor(
    private readonly meta: Server,
    private readonly metaDb: string,
    private readonly servers: readonly Server[],
    placement: Placement,
  ) {
    this.placement = placement;
  }

  static async open(meta: Server, metaDb: string, servers: readonly Server[]): Promise<App> {
    const app = new App(meta, metaDb, servers, undefined as never);
    await app.refresh();
    return app;
  }

  async refresh(): Promise<void> {
    const c = await this.conn(this.meta.name, this.metaDb);
    const [list] = await c.query(`SELECT document FROM \`${this.metaDb}\`.tsh_topology ORDER BY version DESC LIMIT 1`);
    this.placement = JSON.parse((list as { document: string }[])[0]!.document) as Placement;
  }

  /** The shard (name) that holds `id` by the known placement. */
  shardOf(id: number): string {
    const b = bucketOfKey(id);
    return this.placement.bucketMap.find((r) => b >= r.from && b <= r.to)!.shard;
  }

  private async conn(server: string, database: string): Promise<mysql.Connection> {
    const key = `${server}/${database}`;
    let c = this.conns.get(key);
    if (!c) {
      c = await serverConn(this.servers.find((s) => s.name === server) ?? this.meta, database);
      this.conns.set(key, c);
    }
    return c;
  }

  private async connOf(id: number): Promise<mysql.Connection> {
    const shard = this.placement.shards.find((s) => s.name === this.shardOf(id))!;
    return this.conn(shard.server, shard.database);
  }

  private async retrying(fn: () => Promise<void>): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        await fn();
        return;
      } catch (error) {
        // A transaction open when the fence goes in can also lose a deadlock against the
        // fence's INSERT (errno 1213, SQLSTATE 40001): retried like any deadlock.
        const deadlock = (error as { errno?: number }).errno === 1213;
        if ((!isFencedError(error) && !deadlock) || Date.now() > deadline) throw error;
        this.fencedRetries++;
        await new Promise((r) => setTimeout(r, 5));
        await this.refresh();
      }
    }
  }

  async upsert(id: number, name: string, amount: string): Promise<void> {
    await this.retrying(async () => {
      const c = await this.connOf(id);
      await c.query('INSERT INTO items (id, name, amount) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE name = VALUES(name), amount = VALUES(amount)', [id, name, amount]);
    });
    this.ledger.push({ op: 'upsert', id, name, amount });
  }

  /** Ids 1…count, written shard by shard in one statement each (recorded in the ledger). */
  async seed(count: number): Promise<void> {
    const byShard = new Map<string, number[]>();
    for (let id = 1; id <= count; id++) byShard.set(this.shardOf(id), [...(byShard.get(this.shardOf(id)) ?? []), id]);
    for (const ids of byShard.values()) {
      const c = await this.connOf(ids[0]!);
      await c.query('INSERT INTO items (id, name, amount) VALUES ?', [ids.map((id) => [id, `seed${id}`, `${id}.25`])]);
      for (const id of ids) this.ledger.push({ op: 'upsert', id, name: `seed${id}`, amount: `${id}.25` });
    }
  }

  /**
   * Two upserts in one transaction. When both rows live on one server they share one
   * connection and commit together (a transaction across two shards of that server); a fence
   * refusal rolls the whole transaction back and it is retried after a refresh.
   */
  async pair(a: number, b: number, name: string, amount: string): Promise<void> {
    const where = (id: number) => this.placement.shards.find((s) => s.name === this.shardOf(id))!;
    if (where(a).server !== where(b).server) {
      await this.upsert(a, name, amount);
      await this.upsert(b, name, amount);
      return;
    }
    let split = false;
    await this.retrying(async () => {
      const [sa, sb] = [where(a), where(b)];
      if (sa.server !== sb.server) {
        split = true; // the placement changed under us: the rows are now on two servers
        return;
      }
      const c = await this.conn(sa.server, sa.database);
      await c.query('START TRANSACTION');
      try {
        for (const [id, shard] of [[a, sa], [b, sb]] as const) {
          await c.query(`INSERT INTO \`${shard.database}\`.items (id, name, amount) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE name = VALUES(name), amount = VALUES(amount)`, [id, name, amount]);
        }
        await c.query('COMMIT');
      } catch (error) {
        await c.query('ROLLBACK');
        throw error;
      }
    });
    if (split) {
      await this.upsert(a, name, amount);
      await this.upsert(b, name, amount);
      return;
    }
    this.ledger.push({ op: 'upsert', id: a, name, amount }, { op: 'upsert', id: b, name, amount });
  }

  /** A read by primary key (by the known placement); the value is not checked (reads are not fenced). */
  async read(id: number): Promise<void> {
    const c = await this.connOf(id);
    await c.query('SELECT id, name, amount FROM items WHERE id = ?', [id]);
  }

  async remove(id: number): Promise<void> {
    await this.retrying(async () => {
      const c = await this.connOf(id);
      await c.query('DELETE FROM items WHERE id = ?', [id]);
    });
    this.ledger.push({ op: 'delete', id });
  }

  async close(): Promise<void> {
    for (const c of this.conns.values()) await c.end().catch(() => undefined);
    this.conns.clear();
  }
}

/** The final state the ledger implies: id → `name|amount`. */
export function ledgerState(entries: readonly LedgerEntry[]): Map<number, string> {
  const out = new Map<number, string>();
  for (const e of entries) {
    if (e.op === 'delete') out.delete(e.id);
    else out.set(e.id, `${e.name}|${e.amount}`);
  }
  return out;
}

/** id → `name|amount` of `items` in one database. */
export async function itemsOf(server: Server, database: string): Promise<Map<number, string>> {
  const c = await serverConn(server, database);
  const [list] = await c.query('SELECT id, name, amount FROM items');
  await c.end();
  return new Map((list as { id: string; name: string; amount: string }[]).map((r) => [Number(r.id), `${r.name}|${r.amount}`]));
}

/** A random write mix against ids `1…idSpace` until `stop()` is called. */
export function writeLoop(app: App, idSpace: number, seed: number): { stop: () => Promise<void>; count: () => number } {
  let running = true;
  let n = 0;
  let x = seed;
  const rand = (): number => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648);
  const done = (async () => {
    while (running) {
      const id = 1 + Math.floor(rand() * idSpace);
      if (rand() < 0.2) await app.remove(id);
      else await app.upsert(id, `n${n}`, (rand() * 1000).toFixed(2));
      n++;
    }
  })();
  return {
    stop: async () => {
      running = false;
      await done;
    },
    count: () => n,
  };
}

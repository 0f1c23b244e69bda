import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Injectable, Logger, Module, type INestApplicationContext, type LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { getDataSourceToken, InjectDataSource, InjectRepository, TypeOrmModule, type TypeOrmModuleOptions } from '@nestjs/typeorm';
import { Column, DataSource, Entity, EntityManager, In, PrimaryColumn, Repository } from 'typeorm';
import {
  ShardedDataSource,
  ShardingConfigError,
  Sharded,
  ShardKey,
  type ShardedDataSourceOptions,
} from '../packages/typeorm-sharding/src/index.js';

/** The README's order, trimmed; column types spelled out (no reliance on decorator metadata). */
@Entity('orders')
@Sharded()
class Order {
  @PrimaryColumn('bigint') @ShardKey() id!: string;
  @Column('int') buyerId!: number;
  @Column('int') amount!: number;
}

// Every injected constructor parameter names its token (@InjectRepository, @InjectDataSource):
// Nest then needs no `design:paramtypes`, so the module boots whatever the test transformer
// emits. The region below is the README's "NestJS" block, verbatim (checked at the end).

// #region readme-nestjs
const shardLog = new Logger('Shards');

@Injectable()
export class OrdersService {
  constructor(
    @InjectRepository(Order) private readonly orders: Repository<Order>,
    @InjectDataSource() readonly dataSource: ShardedDataSource, // the DataSource token holds the sharded source
  ) {}

  saveAll(orders: Order[]): Promise<Order[]> {
    return this.orders.save(orders);
  }

  byIds(ids: string[]): Promise<Order[]> {
    return this.orders.find({ where: { id: In(ids) } });
  }
}

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      useFactory: () => ({
        type: 'better-sqlite3',
        autoLoadEntities: true, // the entities of every forFeature()
        synchronize: true,
        shards: ['s0', 's1', 's2', 's3'].map((name) => ({ name, database: ':memory:' })),
        sharding: {
          onPhysicalQuery: (e) => shardLog.debug(`${e.shard}: ${e.sql} -- [${e.parameters.join(', ')}]`),
        },
        // A wrong configuration does not heal by retrying; an unreachable shard may.
        toRetry: (error) => !(error instanceof ShardingConfigError),
      }) satisfies TypeOrmModuleOptions & ShardedDataSourceOptions,
      // Nest hands the options above, entities included, to this factory and initializes the result.
      dataSourceFactory: async (options) => new ShardedDataSource(options as ShardedDataSourceOptions),
    }),
    TypeOrmModule.forFeature([Order]),
  ],
  providers: [OrdersService],
})
export class AppModule {}
// #endregion readme-nestjs

/** One physical statement, as the README's module logs it. */
interface LoggedStatement {
  readonly shard: string;
  readonly sql: string;
  readonly parameters: unknown[];
}

/** A Nest logger that keeps the `Shards` debug lines and drops everything else. */
class ShardLogCapture implements LoggerService {
  readonly statements: LoggedStatement[] = [];
  debug(message: unknown, context?: string): void {
    if (context !== 'Shards') return;
    const m = /^(\S+): ([\s\S]*) -- \[(.*)\]$/.exec(String(message));
    if (!m) throw new Error(`unexpected shard log line: ${String(message)}`);
    this.statements.push({ shard: m[1]!, sql: m[2]!, parameters: m[3] === '' ? [] : m[3]!.split(', ') });
  }
  log(): void {}
  error(...args: unknown[]): void {
    console.error(...args); // a boot that fails says why
  }
  warn(): void {}
}

const order = (id: number): Order =>
  Object.assign(new Order(), { id: String(id), buyerId: id % 3, amount: id * 10 });

/** The values one statement carries for `id`: literals of its IN list(s) (SQLite writes numbers into the text) and its parameters. */
function idValuesOf(statement: LoggedStatement): string[] {
  const literals = [...statement.sql.matchAll(/IN \(([^)]*)\)/g)].flatMap((m) => m[1]!.split(',').map((v) => v.trim()));
  return [...literals.filter((v) => v !== '?'), ...statement.parameters.map(String)].map((v) => v.replace(/^'(.*)'$/, '$1'));
}

let app: INestApplicationContext | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function boot(): Promise<{ app: INestApplicationContext; log: ShardLogCapture }> {
  const log = new ShardLogCapture();
  app = await NestFactory.createApplicationContext(AppModule, { logger: log, abortOnError: false });
  return { app, log };
}

describe('NestJS TypeOrmModule with a ShardedDataSource (SQLite shards)', () => {
  it('injects the ShardedDataSource under the DataSource token, with its manager', async () => {
    const { app } = await boot();
    const ds = app.get(DataSource);
    expect(ds).toBeInstanceOf(ShardedDataSource);
    expect(ds.isInitialized).toBe(true);
    expect((ds as ShardedDataSource).shardNames).toEqual(['s0', 's1', 's2', 's3']);
    expect(app.get(getDataSourceToken())).toBe(ds);
    expect(app.get(OrdersService).dataSource).toBe(ds);
    expect(app.get(EntityManager).connection).toBe(ds);
    expect(app.get(EntityManager)).toBe(ds.manager);
  });

  it('saves through the injected repository: every row on its own shard, on several shards', async () => {
    const { app } = await boot();
    const service = app.get(OrdersService);
    const ds = service.dataSource;
    const ids = Array.from({ length: 24 }, (_, i) => i + 1);
    await service.saveAll(ids.map(order));
    const holders = new Set<string>();
    for (const id of ids) {
      const home = ds.shardOf(Order, id);
      holders.add(home);
      for (const name of ds.shardNames) {
        const rows: unknown[] = await ds.getShardDataSource(name).query('SELECT id FROM orders WHERE id = ?', [id]);
        expect(rows.length, `order ${id} on ${name}`).toBe(name === home ? 1 : 0);
      }
    }
    expect(holders.size).toBe(4);
  });

  it('prunes find({ id: In(...) }) through the injected repository and returns exactly those rows', async () => {
    const { app, log } = await boot();
    const service = app.get(OrdersService);
    const ds = service.dataSource;
    await service.saveAll(Array.from({ length: 40 }, (_, i) => order(i + 1)));
    // Keys that live on three of the four shards: the fourth must not be asked at all.
    const skipped = ds.shardOf(Order, 1);
    const ids = Array.from({ length: 40 }, (_, i) => String(i + 1)).filter((id) => ds.shardOf(Order, id) !== skipped).slice(0, 9);
    const wanted = new Set(ids.map((id) => ds.shardOf(Order, id)));
    expect(wanted.size).toBe(3);

    log.statements.length = 0;
    const rows = await service.byIds(ids);
    expect(rows.map((r) => String(r.id)).sort()).toEqual([...ids].sort());
    for (const row of rows) expect(row.amount).toBe(Number(row.id) * 10);

    const seen = new Map<string, string>();
    for (const statement of log.statements) {
      for (const value of idValuesOf(statement)) {
        expect(seen.get(value), `${value} sent to ${seen.get(value)} and ${statement.shard}`).toBeUndefined();
        seen.set(value, statement.shard);
        expect(ds.shardOf(Order, value), `${value} sent to ${statement.shard}`).toBe(statement.shard);
      }
    }
    expect([...seen.keys()].sort()).toEqual([...ids].sort());
    expect(new Set(log.statements.map((s) => s.shard))).toEqual(wanted);
  });

  it('destroys the ShardedDataSource and closes every shard on app.close()', async () => {
    const { app: booted } = await boot();
    const ds = booted.get(DataSource) as ShardedDataSource;
    const shards = ds.shardNames.map((name) => ds.getShardDataSource(name));
    expect(shards.every((shard) => shard.isInitialized)).toBe(true);
    await booted.close();
    app = undefined;
    expect(ds.isInitialized).toBe(false);
    expect(shards.map((shard) => shard.isInitialized)).toEqual([false, false, false, false]);
    expect(() => ds.getShardDataSource('s0')).toThrow(ShardingConfigError);
  });

  it('fails the boot at once with the typed error when the sharding configuration is wrong', async () => {
    let created = 0;
    @Module({
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => ({
            type: 'better-sqlite3',
            entities: [Order],
            shards: [{ name: 's0', database: ':memory:' }, { name: 's0', database: ':memory:' }],
            toRetry: (error) => !(error instanceof ShardingConfigError),
          }) satisfies TypeOrmModuleOptions & ShardedDataSourceOptions,
          dataSourceFactory: async (options) => {
            created++;
            return new ShardedDataSource(options as ShardedDataSourceOptions);
          },
        }),
      ],
    })
    class BrokenModule {}
    const boot = NestFactory.createApplicationContext(BrokenModule, { logger: false, abortOnError: false });
    await expect(boot).rejects.toThrow(ShardingConfigError);
    expect(created).toBe(1);
  });

  it('keeps the README NestJS block identical to the module booted here', () => {
    const root = join(dirname(fileURLToPath(import.meta.url)), '..');
    const source = readFileSync(fileURLToPath(import.meta.url), 'utf8');
    const region = /\/\/ #region readme-nestjs\n([\s\S]*?)\/\/ #endregion readme-nestjs/.exec(source)?.[1];
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const block = /## NestJS[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(region).toBeDefined();
    expect(block).toBeDefined();
    expect(block).toContain(region);
  });
});

import { AsyncLocalStorage } from 'node:async_hooks';
import { EntityManager, type DataSource } from 'typeorm';
import type { IsolationLevel } from 'typeorm/driver/types/IsolationLevel.js';
import { forWritesOwnReads } from '../router/hints/routing-scope.js';
import { SerialQueue } from '../session/serial-queue.js';

/** One transaction callback while it runs: transactions started inside it nest in it. */
interface TransactionScope {
  readonly dataSource: DataSource;
  /** Transactions nested in this one, one at a time (savepoints on one connection cannot interleave). */
  readonly nested: SerialQueue;
  open: boolean;
}

const scopes = new AsyncLocalStorage<TransactionScope>();
const topLevel = new WeakMap<DataSource, SerialQueue>();
/**
 * Transaction callbacks running now. On Node 20 an enabled AsyncLocalStorage makes every
 * promise in the process markedly slower (a sharded `findOneBy` measured 1.5–2× slower), so
 * it is disabled whenever no callback runs; `run()` enables it again.
 */
let runningScopes = 0;

/**
 * The EntityManager of a ShardedDataSource. On SQLite it runs `transaction()` calls one at a
 * time, as users expect of an embedded database.
 *
 * TypeORM's SQLite driver shares one QueryRunner (one connection) between all callers, so two
 * overlapping `transaction()` calls would interleave their BEGIN / COMMIT on it. Here a
 * top-level transaction waits for the one before it to finish. A transaction started from
 * inside a running transaction callback — `em.transaction`, or `ds.transaction` called by code
 * the callback awaits — is nested in it (a savepoint, as TypeORM does on SQLite) and does
 * not wait for it, which would deadlock; nested siblings also run one at a time.
 * MySQL / MariaDB transactions each have their own connection and are left as TypeORM runs them.
 */
export class ShardedEntityManager extends EntityManager {
  override transaction<T>(runInTransaction: (entityManager: EntityManager) => Promise<T>): Promise<T>;
  override transaction<T>(isolationLevel: IsolationLevel, runInTransaction: (entityManager: EntityManager) => Promise<T>): Promise<T>;
  override transaction<T>(
    isolationOrRun: IsolationLevel | ((entityManager: EntityManager) => Promise<T>),
    maybeRun?: (entityManager: EntityManager) => Promise<T>,
  ): Promise<T> {
    const isolation = typeof isolationOrRun === 'string' ? isolationOrRun : undefined;
    const run = typeof isolationOrRun === 'function' ? isolationOrRun : maybeRun;
    const start = (task: (entityManager: EntityManager) => Promise<T>) =>
      isolation === undefined ? super.transaction(task) : super.transaction(isolation, task);
    // A missing callback: TypeORM's own error.
    if (!run) return super.transaction(isolationOrRun as IsolationLevel, maybeRun!);
    if (this.dataSource.options.type !== 'better-sqlite3') return start(run);

    const outer = scopes.getStore();
    const parent = outer?.open && outer.dataSource === this.dataSource ? outer : undefined;
    const queue = parent?.nested ?? topLevelQueue(this.dataSource);
    return queue.run(() =>
      start((entityManager) => {
        const scope: TransactionScope = { dataSource: this.dataSource, nested: new SerialQueue(), open: true };
        runningScopes++;
        // Inside an async function, so that a callback that throws at once still ends the scope.
        const inScope = async () => scopes.run(scope, () => run(entityManager));
        return inScope().finally(() => {
          scope.open = false;
          if (--runningScopes === 0) scopes.disable();
        });
      }),
    );
  }
}

/**
 * Runs `work` in turn with the top-level `transaction()` calls of a SQLite data source: for a
 * transaction the plugin opens itself on the shared session (a write over several shards).
 */
export function inTurnWithTransactions<T>(dataSource: DataSource, work: () => Promise<T>): Promise<T> {
  return topLevelQueue(dataSource).run(work);
}

function topLevelQueue(dataSource: DataSource): SerialQueue {
  let queue = topLevel.get(dataSource);
  if (!queue) topLevel.set(dataSource, (queue = new SerialQueue()));
  return queue;
}

/**
 * The EntityManager methods that write and may read for themselves first or after (save's
 * existence check, the reload of generated columns after an insert, cascades): their reads run
 * on the primary whatever a `withRouting({ forceSlave: true })` scope says (see `forWritesOwnReads`).
 */
const WRITES_WITH_OWN_READS = ['save', 'remove', 'softRemove', 'recover', 'insert', 'update', 'upsert', 'delete', 'softDelete', 'restore', 'increment', 'decrement'] as const;

for (const name of WRITES_WITH_OWN_READS) {
  const base = (EntityManager.prototype as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[name]!;
  Object.defineProperty(ShardedEntityManager.prototype, name, {
    configurable: true,
    writable: true,
    value: function (this: EntityManager, ...args: unknown[]): Promise<unknown> {
      return forWritesOwnReads(() => base.apply(this, args));
    },
  });
}

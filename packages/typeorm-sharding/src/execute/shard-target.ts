import type { DataSource, QueryRunner, ReplicationMode } from 'typeorm';

/**
 * One shard as the executor sees it: a name and a way to get a connection. Kept apart from
 * DataSource so that tests can inject faults, and so that shards sharing a server can later
 * share one pool.
 */
export interface ShardTarget {
  readonly name: string;
  readonly index: number;
  readonly dataSource: DataSource;
  /** A runner for one statement (or a whole transaction when pinned). */
  createRunner(mode: ReplicationMode): QueryRunner;
  releaseRunner(runner: QueryRunner): Promise<void>;
}

/** A ShardTarget over a plain TypeORM DataSource. Uses the driver's runner directly: no EntityManager per statement. */
export function dataSourceTarget(name: string, index: number, dataSource: DataSource): ShardTarget {
  return {
    name,
    index,
    dataSource,
    createRunner: (mode) => dataSource.driver.createQueryRunner(mode),
    releaseRunner: (runner) => runner.release(),
  };
}

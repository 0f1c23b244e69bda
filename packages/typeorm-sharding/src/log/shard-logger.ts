import type { Logger, QueryRunner } from 'typeorm';

/**
 * The logger of each shard's own DataSource. Statements that reach a shard are physical:
 * the ShardedDataSource logs the logical statement once and the physical ones as
 * `sharding.logPhysicalQueries` says, so the shard's own query logging is dropped here (it
 * would repeat them, and only for the few that run on a shard's QueryRunner: transactions,
 * streams). Schema-build, migration and free-form messages go to the ShardedDataSource's
 * logger. While the ShardedDataSource synchronizes or drops the schema through the shards'
 * own runners — there is no logical statement then — their statements are logged as TypeORM
 * logs them, with the shard named in front.
 */
export class ShardLogger implements Logger {
  /** True while the ShardedDataSource drives schema changes through this shard's runners. */
  forwardQueries = false;

  constructor(
    /** The ShardedDataSource's logger (read on each call: `setOptions` may replace it). */
    private readonly target: () => Logger,
    private readonly shard: string,
  ) {}

  logQuery(query: string, parameters?: unknown[], queryRunner?: QueryRunner): void {
    if (this.forwardQueries) this.target().logQuery(this.tagged(query), parameters, queryRunner);
  }

  logQueryError(error: string | Error, query: string, parameters?: unknown[], queryRunner?: QueryRunner): void {
    if (this.forwardQueries) this.target().logQueryError(error, this.tagged(query), parameters, queryRunner);
  }

  logQuerySlow(time: number, query: string, parameters?: unknown[], queryRunner?: QueryRunner): void {
    if (this.forwardQueries) this.target().logQuerySlow(time, this.tagged(query), parameters, queryRunner);
  }

  logSchemaBuild(message: string, queryRunner?: QueryRunner): void {
    this.target().logSchemaBuild(`shard ${this.shard}: ${message}`, queryRunner);
  }

  logMigration(message: string, queryRunner?: QueryRunner): void {
    this.target().logMigration(message, queryRunner);
  }

  log(level: 'log' | 'info' | 'warn', message: unknown, queryRunner?: QueryRunner): void {
    this.target().log(level, message, queryRunner);
  }

  private tagged(query: string): string {
    return `/* shard ${this.shard} */ ${query}`;
  }
}

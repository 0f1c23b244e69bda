import type { EntityMetadata, EntitySubscriberInterface, InsertEvent, ObjectLiteral } from 'typeorm';
import type { SnowflakeColumn } from './snowflake-columns.js';
import type { KeyGenerator } from './snowflake-generator.js';
import { SNOWFLAKE_DIGITS } from './snowflake-layout.js';

/**
 * The TypeORM subscriber that fills `@Snowflake()` columns. `beforeInsert` runs for `save()`
 * (before its value sets are computed), `insert()`, `upsert()` and QueryBuilder inserts, before
 * TypeORM writes the SQL: the id is then an ordinary value of the INSERT, so the statement is
 * routed by it, and TypeORM reports it (entity, `identifiers`) exactly as a value the caller set.
 * That is also why this is a subscriber and not a step of the INSERT planner: a value added to
 * the SQL would never reach the entity. The ShardedDataSource puts it first among the
 * subscribers, so that the user's own subscribers see the id.
 */
export class SnowflakeSubscriber implements EntitySubscriberInterface<ObjectLiteral> {
  constructor(
    private readonly generator: KeyGenerator,
    private readonly columns: ReadonlyMap<EntityMetadata, readonly SnowflakeColumn[]>,
  ) {}

  beforeInsert(event: InsertEvent<ObjectLiteral>): void {
    const columns = this.columns.get(event.metadata);
    if (!columns || !event.entity) return;
    for (const { column, padded } of columns) {
      const value: unknown = column.getEntityValue(event.entity);
      if (value !== undefined && value !== null) continue;
      const id = this.generator.nextId();
      column.setEntityValue(event.entity, padded ? id.padStart(SNOWFLAKE_DIGITS, '0') : id);
    }
  }
}

import type { DataSource } from 'typeorm';
import type { KeyPartitioning } from '../rules/index.js';

const quote = (name: string) => `\`${name.replace(/`/g, '``')}\``;

/**
 * After TypeORM's schema sync of one MySQL shard database: partitions each table of `layouts`
 * as declared, `ALTER TABLE … PARTITION BY KEY (column) PARTITIONS count`, unless it already is
 * (TypeORM neither creates nor sees partitions, and keeps them through its own ALTERs). A table
 * partitioned some other way is partitioned again as declared: `synchronize` makes the schema
 * what the entities say. The ALTER rebuilds the table and keeps its rows.
 */
export async function partitionTables(ds: DataSource, database: string, layouts: readonly KeyPartitioning[]): Promise<void> {
  for (const layout of layouts) {
    const found = (await ds.query(
      'SELECT `PARTITION_METHOD` AS `method`, `PARTITION_EXPRESSION` AS `expression`, COUNT(*) AS `n` FROM `information_schema`.`PARTITIONS` WHERE `TABLE_SCHEMA` = ? AND `TABLE_NAME` = ? GROUP BY `PARTITION_METHOD`, `PARTITION_EXPRESSION`',
      [database, layout.tableName],
    )) as { method: string | null; expression: string | null; n: number | string }[];
    if (isPartitionedAs(found, layout)) continue;
    await ds.query(`ALTER TABLE ${quote(database)}.${quote(layout.tableName)} PARTITION BY KEY (${quote(layout.column)}) PARTITIONS ${layout.count}`);
  }
}

/** information_schema's rows say `KEY` over exactly the shard-key column, `count` partitions. */
function isPartitionedAs(found: readonly { method: string | null; expression: string | null; n: number | string }[], layout: KeyPartitioning): boolean {
  if (found.length !== 1) return false;
  const [row] = found;
  // MySQL writes the column list quoted (`id`), MariaDB too; compare without quotes or case.
  const columns = (row!.expression ?? '').replace(/`/g, '').trim().toLowerCase();
  return row!.method === 'KEY' && columns === layout.column.toLowerCase() && Number(row!.n) === layout.count;
}

// A user's data source module, as `typeorm-sharding reshard -d` loads it (its default export).
// The database names come from the environment of the test that runs the command.
import 'reflect-metadata';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { ShardedDataSource, Sharded, ShardKey } from '../../packages/typeorm-sharding/dist/index.js';

class CliOrder {}
Entity('cli_orders')(CliOrder);
Sharded()(CliOrder);
PrimaryColumn('bigint')(CliOrder.prototype, 'id');
ShardKey()(CliOrder.prototype, 'id');
Column('varchar', { length: 40 })(CliOrder.prototype, 'name');

const env = JSON.parse(process.env.TSH_CLI_ENV);
export default new ShardedDataSource({
  type: 'mariadb',
  entities: [CliOrder],
  synchronize: true,
  servers: [{ name: 'main', host: env.host, port: env.port, username: 'root', password: '' }],
  shards: [
    { name: 's0', server: 'main', database: env.s0 },
    { name: 's1', server: 'main', database: env.s1 },
  ],
  sharding: { topology: { server: 'main', database: env.meta, refreshMs: 100 } },
});

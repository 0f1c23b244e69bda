// A process that writes one row of a table with a global unique index (an insert, or a change
// of its indexed value) over two MariaDB servers and kills itself with SIGKILL at a chosen point
// of that write: after its n-th physical statement, or at a step of its cross-server commit.
//   CONFIG (JSON): { servers, shards, mode: 'insert' | 'move', id, email, killKind: 'statement' | 'step', killAt, killStep, journal }
// The journal gets one line per statement and step, synchronously, so that a kill loses nothing.
import { openSync, writeSync } from 'node:fs';
import 'reflect-metadata';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { ShardedDataSource, Sharded, ShardKey } from 'typeorm-sharding';

class CrashUser {}
PrimaryColumn('int')(CrashUser.prototype, 'id');
ShardKey()(CrashUser.prototype, 'id');
Column({ type: 'varchar', length: 60, unique: true })(CrashUser.prototype, 'email');
Entity('gc_users')(CrashUser);
Sharded()(CrashUser);

const config = JSON.parse(process.env.CONFIG);
const journal = openSync(config.journal, 'a');
const note = (line) => writeSync(journal, `${line}\n`);
let armed = false;
let seen = 0;

const ds = new ShardedDataSource({
  type: 'mariadb',
  username: 'root',
  password: '',
  entities: [CrashUser],
  servers: config.servers.map((s) => ({ name: s.name, host: '127.0.0.1', port: s.port, poolSize: 4 })),
  shards: config.shards,
  sharding: {
    onPhysicalQuery: (e) => {
      if (!armed) return;
      note(`statement ${e.shard} ${e.sql.replace(/\s+/g, ' ').slice(0, 60)}`);
      if (config.killKind === 'statement' && ++seen === config.killAt) process.kill(process.pid, 'SIGKILL');
    },
    transactions: {
      resolveIntervalMs: false,
      onStep: (e) => {
        if (!armed) return;
        note(`step ${e.step} ${e.server ?? '-'}`);
        if (config.killKind === 'step' && e.step === config.killStep && ++seen === config.killAt) process.kill(process.pid, 'SIGKILL');
      },
    },
  },
});
await ds.initialize();
armed = true;
try {
  if (config.mode === 'insert') await ds.getRepository(CrashUser).insert({ id: config.id, email: config.email });
  else await ds.getRepository(CrashUser).update({ id: config.id }, { email: config.email });
  note('done ok');
} catch (error) {
  note(`done ${error?.driverError?.code ?? error?.name}`);
}
armed = false;
await ds.destroy();

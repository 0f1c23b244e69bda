// An application process for the two-process topology test: a ShardedDataSource sharing the
// topology store, which never polls (refreshMs huge) — it learns of a new version only from a
// fence refusal. Reads commands from stdin, one JSON per line: { op: 'insert', id } ; { op: 'exit' }.
// Answers one JSON line per command on stdout: { ok, version, error? }.
//   CONFIG (JSON): { port, shards: [{ name, database }], meta }
import 'reflect-metadata';
import { createInterface } from 'node:readline';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { ShardedDataSource, Sharded, ShardKey } from 'typeorm-sharding';

export class Ledger {}
PrimaryColumn('bigint')(Ledger.prototype, 'id');
ShardKey()(Ledger.prototype, 'id');
Column('varchar', { length: 20 })(Ledger.prototype, 'writer');
Entity('topo_ledger')(Ledger);
Sharded()(Ledger);

const config = JSON.parse(process.env.CONFIG);
const ds = new ShardedDataSource({
  type: 'mariadb',
  entities: [Ledger],
  servers: [{ name: 'main', host: '127.0.0.1', port: config.port, username: 'root', password: '' }],
  shards: config.shards.map((s) => ({ ...s, server: 'main' })),
  sharding: { topology: { server: 'main', database: config.meta, refreshMs: 2_000_000_000, fenceRetryMs: 10_000 } },
});
await ds.initialize();
const say = (answer) => process.stdout.write(`${JSON.stringify({ ...answer, version: ds.topology.version })}\n`);
say({ ok: true, ready: true });
for await (const line of createInterface({ input: process.stdin })) {
  const command = JSON.parse(line);
  if (command.op === 'exit') break;
  try {
    await ds.getRepository(Ledger).insert({ id: String(command.id), writer: 'B' });
    say({ ok: true });
  } catch (error) {
    say({ ok: false, error: `${error?.constructor?.name}: ${error?.message}` });
  }
}
await ds.destroy();

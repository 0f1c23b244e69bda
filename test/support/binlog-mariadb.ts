import { canStartMariadb, startServers, type MariadbCluster } from './mariadb-cluster.js';

/**
 * A MariaDB with a ROW binlog, for the tests of the online mover: a `mariadbd` of the test's own
 * on a fixed loopback port (the machine's MariaDB on 3306 is not started with `--log-bin`, and
 * the mover refuses a server without a ROW / FULL binlog). Started at import, so that the test
 * file can use `server` in its module scope; `stop()` in `afterAll`. `available` is false only
 * outside CI on a machine without the MariaDB binaries (with CI=true that throws).
 */
export interface BinlogMariadb {
  readonly available: boolean;
  readonly server: { readonly host: string; readonly port: number; readonly user: string; readonly password: string };
  stop(): Promise<void>;
}

export async function binlogMariadb(port: number): Promise<BinlogMariadb> {
  if (!canStartMariadb()) return { available: false, server: { host: '127.0.0.1', port, user: 'root', password: '' }, stop: async () => {} };
  const cluster: MariadbCluster = await startServers(1, { ports: [port] });
  return {
    available: true,
    server: { host: '127.0.0.1', port: cluster.primary.port, user: 'root', password: '' },
    stop: () => cluster.stop(),
  };
}

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';

/** One `mariadbd` process of a test cluster. */
export interface ClusterNode {
  readonly name: string;
  readonly port: number;
  readonly serverId: number;
  /** The process id, while it runs. */
  pid: number | undefined;
}

/**
 * A primary and its GTID replicas (or, from `startServers`, independent servers), each its own
 * `mariadbd` on a loopback port with its own data directory.
 */
export interface MariadbCluster {
  readonly dir: string;
  readonly primary: ClusterNode;
  readonly replicas: readonly ClusterNode[];
  /** Runs statements on a node (a fresh connection as root). */
  sql(node: ClusterNode, ...statements: string[]): Promise<unknown[]>;
  /** Stops a node at once (SIGKILL) and waits until the process is gone. */
  kill(node: ClusterNode): Promise<void>;
  /** Starts a killed node again on its data directory (a replica resumes replicating). */
  restart(node: ClusterNode): Promise<void>;
  /** Kills every process by its id and removes the data directories. Safe to call twice. */
  stop(): Promise<void>;
}

/** How `startCluster` sets its servers up. */
export interface ClusterOptions {
  /**
   * false: the "replicas" are independent servers (no replication), e.g. the several servers
   * of a sharded data source. @default true
   */
  readonly replicate?: boolean;
  /** More `mariadbd` options for every node (e.g. `--innodb-lock-wait-timeout=1`). */
  readonly serverOptions?: readonly string[];
  /**
   * Loopback ports for the primary then each replica (a range agreed among the people sharing a
   * machine); a node without one gets a free port. @default free ports
   */
  readonly ports?: readonly number[];
}

/**
 * `count` independent MariaDB servers (each its own `mariadbd`, data directory and port): the
 * first is `primary`, the others `replicas`, but none replicates.
 */
export function startServers(count: number, options: Omit<ClusterOptions, 'replicate'> = {}): Promise<MariadbCluster> {
  return startCluster(count - 1, { ...options, replicate: false });
}

const PREFIX = 'tsh-cluster-';
const OWNER_FILE = 'owner.pid';
// Small enough for three servers on a shared 2-core machine, big enough for the tests' rows.
const SERVER_OPTIONS = ['--innodb-buffer-pool-size=16M', '--innodb-log-file-size=4M', '--skip-name-resolve', '--binlog-format=ROW', '--log-bin=bin', '--max-connections=100'];
const running = new Set<MariadbCluster>();

/** Whether this machine can start its own `mariadbd` (the binaries of the MariaDB package). */
export function canStartMariadb(): boolean {
  const ok = ['mariadbd', 'mariadb-install-db'].every((bin) => spawnSync('sh', ['-c', `command -v ${bin} || test -x /usr/sbin/${bin}`]).status === 0);
  if (!ok && process.env.CI === 'true') throw new Error('CI=true but mariadbd / mariadb-install-db are not installed: the replication tests must run');
  return ok;
}

/**
 * Starts one primary and `replicaCount` replicas (GTID replication, `MASTER_USE_GTID=slave_pos`)
 * on free loopback ports, each with a data directory of its own under one temporary directory
 * (`mariadb-install-db` runs once; the replicas start from copies). About 2 s on a 2-core machine.
 *
 * Cleanup does not depend on the test finishing: `stop()` (call it in `afterAll`) kills the
 * processes by id; a process exit handler does the same if the worker ends first; and every
 * start first removes clusters left behind by a test process that no longer exists (killed
 * before it could clean up), found by the owner pid written into their directory.
 */
export async function startCluster(replicaCount = 2, options: ClusterOptions = {}): Promise<MariadbCluster> {
  reapOrphans();
  const serverOptions = [...SERVER_OPTIONS, ...(options.serverOptions ?? [])];
  const dir = mkdtempSync(join(tmpdir(), PREFIX));
  writeFileSync(join(dir, OWNER_FILE), String(process.pid));
  const nodes: ClusterNode[] = [];
  const children = new Map<string, ChildProcess>();
  const cluster: MariadbCluster = {
    dir,
    primary: undefined as unknown as ClusterNode,
    replicas: [],
    sql: (node, ...statements) => runSql(node.port, statements),
    kill: async (node) => {
      const child = children.get(node.name);
      if (child === undefined || node.pid === undefined) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      if (child.exitCode === null && child.signalCode === null) process.kill(node.pid, 'SIGKILL');
      await exited;
      node.pid = undefined;
      children.delete(node.name);
    },
    restart: async (node) => {
      children.set(node.name, launch(dir, node, serverOptions));
      await waitReady(node.port, dir, node.name);
    },
    stop: async () => {
      running.delete(cluster);
      await Promise.all(nodes.map((n) => cluster.kill(n)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  running.add(cluster);
  try {
    install(join(dir, 'template'));
    for (let i = 0; i <= replicaCount; i++) {
      const name = i === 0 ? 'primary' : `replica${i}`;
      cpSync(join(dir, 'template'), join(dir, name), { recursive: true });
      nodes.push({ name, port: options.ports?.[i] ?? (await freePort()), serverId: i + 1, pid: undefined });
    }
    rmSync(join(dir, 'template'), { recursive: true, force: true });
    for (const node of nodes) children.set(node.name, launch(dir, node, serverOptions));
    await Promise.all(nodes.map((n) => waitReady(n.port, dir, n.name)));
    const [primary, ...replicas] = nodes;
    Object.assign(cluster, { primary, replicas });
    if (options.replicate === false) return cluster;
    for (const replica of replicas) {
      await runSql(replica.port, [
        `CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=${primary!.port}, MASTER_USER='root', MASTER_PASSWORD='', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1`,
        'START SLAVE',
      ]);
    }
    return cluster;
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

function install(datadir: string): void {
  const args = ['--no-defaults', `--datadir=${datadir}`, '--auth-root-authentication-method=normal', '--skip-test-db', ...userOption(), '--innodb-log-file-size=4M', '--innodb-buffer-pool-size=16M'];
  const result = spawnSync('mariadb-install-db', args, { encoding: 'utf8', env: { ...process.env, PATH: `${process.env.PATH ?? ''}:/usr/sbin:/usr/bin` } });
  if (result.status !== 0) throw new Error(`mariadb-install-db failed (${result.status}): ${result.stderr || result.stdout}`);
}

function launch(dir: string, node: ClusterNode, serverOptions: readonly string[]): ChildProcess {
  const datadir = join(dir, node.name);
  const args = [
    '--no-defaults',
    ...userOption(),
    `--datadir=${datadir}`,
    `--port=${node.port}`,
    '--bind-address=127.0.0.1',
    `--socket=${join(dir, `${node.name}.sock`)}`,
    `--pid-file=${join(dir, `${node.name}.pid`)}`,
    `--log-error=${join(dir, `${node.name}.err`)}`,
    `--server-id=${node.serverId}`,
    ...serverOptions,
  ];
  const bin = existsSync('/usr/sbin/mariadbd') ? '/usr/sbin/mariadbd' : 'mariadbd';
  const child = spawn(bin, args, { stdio: 'ignore' });
  if (child.pid === undefined) throw new Error(`could not start mariadbd for ${node.name}`);
  node.pid = child.pid;
  writeFileSync(join(dir, `${node.name}.child`), String(child.pid));
  return child;
}

/** mariadbd refuses to run as root unless told to. */
function userOption(): string[] {
  return process.getuid?.() === 0 ? ['--user=root'] : [];
}

async function waitReady(port: number, dir: string, name: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const c = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root', password: '', connectTimeout: 1000 });
      await c.end();
      return;
    } catch (error) {
      if (Date.now() > deadline) {
        const log = existsSync(join(dir, `${name}.err`)) ? readFileSync(join(dir, `${name}.err`), 'utf8').slice(-2000) : '';
        throw new Error(`mariadbd ${name} on port ${port} did not come up: ${(error as Error).message}\n${log}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function runSql(port: number, statements: readonly string[]): Promise<unknown[]> {
  const c = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root', password: '' });
  try {
    const out: unknown[] = [];
    for (const s of statements) out.push((await c.query(s))[0]);
    return out;
  } finally {
    await c.end();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Kills and removes clusters whose owning test process is gone. */
function reapOrphans(): void {
  let entries: string[];
  try {
    entries = readdirSync(tmpdir()).filter((e) => e.startsWith(PREFIX));
  } catch {
    return;
  }
  for (const entry of entries) {
    const dir = join(tmpdir(), entry);
    try {
      const owner = Number(readFileSync(join(dir, OWNER_FILE), 'utf8'));
      if (owner === process.pid || alive(owner)) continue;
      for (const file of readdirSync(dir).filter((f) => f.endsWith('.child'))) {
        const pid = Number(readFileSync(join(dir, file), 'utf8'));
        if (pid > 0 && alive(pid) && isMariadbd(pid)) process.kill(pid, 'SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Another process is reaping it, or it is not ours: leave it.
    }
  }
}

/** Only ever kill a process that is a mariadbd (a pid may have been reused). */
function isMariadbd(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim().startsWith('mariadbd');
  } catch {
    return false;
  }
}

// If the worker exits with clusters still running (a test that never reached afterAll), kill them.
process.once('exit', () => {
  for (const cluster of running) {
    for (const node of [cluster.primary, ...cluster.replicas]) {
      if (node?.pid !== undefined && alive(node.pid)) process.kill(node.pid, 'SIGKILL');
    }
    rmSync(cluster.dir, { recursive: true, force: true });
  }
});

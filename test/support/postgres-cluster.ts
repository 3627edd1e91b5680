/**
 * A throw-away PostgreSQL cluster for tests: Debian's server binaries (`postgresql`, installed by
 * scripts/bootstrap.sh), initdb into a temp dir, started with pg_ctl on a free loopback port,
 * password sign-in (scram-sha-256), removed at the end. initdb refuses to run as root, so under
 * root the cluster belongs to the `postgres` system user (`runuser`).
 *
 * In the integration suite initdb runs once (postgres-template-setup.ts, a vitest globalSetup):
 * each cluster is a copy of that stopped, freshly made one (the same as its own initdb would
 * make), still a server of its own on its own port, so a test may stop and start it. A file that
 * never stops its server takes the suite's one running cluster instead (`sharedPostgresCluster`:
 * its own databases in it, dropped at its end), started once by the same setup.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { inject } from 'vitest';

const run = promisify(execFile);
export const CLUSTER_USER = 'clarity';
export const CLUSTER_PASSWORD = 'test-only-password';

/** The newest installed server's bin directory (15 on Debian 12), or null when none is. */
export function postgresBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface PostgresCluster {
  port: number;
  /** A URL for database `name` (created by `createDatabase`). */
  url(name: string, password?: string): string;
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

/** A temp dir for a cluster, owned by the user its server runs as (`postgres` under root), 0700. */
async function clusterDir(bin: string): Promise<{ dir: string; as: (command: string, args: string[]) => Promise<unknown>; asRoot: boolean }> {
  const dir = await mkdtemp(join(tmpdir(), 'clarity-pg-'));
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  await chmod(dir, 0o700);
  const as = (command: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args]) : run(join(bin, command), args));
  return { dir, as, asRoot };
}

/** initdb into `<dir>/data`: the `clarity` superuser with CLUSTER_PASSWORD, UTF8, C locale. */
async function initCluster(dir: string, as: (command: string, args: string[]) => Promise<unknown>, asRoot: boolean): Promise<void> {
  const pwfile = join(dir, 'pwfile');
  await writeFile(pwfile, CLUSTER_PASSWORD, { mode: 0o600 });
  if (asRoot) await run('chown', ['postgres:postgres', pwfile]);
  await as('initdb', ['-D', join(dir, 'data'), '-U', CLUSTER_USER, '--auth=scram-sha-256', `--pwfile=${pwfile}`, '--no-sync', '-E', 'UTF8', '--locale=C']);
  await rm(pwfile, { force: true });
}

/**
 * A freshly made cluster, never started, for the suite's clusters to copy (postgres-template-setup.ts):
 * its folder (holding `data`), removed with `rm` at the end.
 */
export async function makeClusterTemplate(): Promise<string> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql: run scripts/bootstrap.sh (it installs the postgresql package).');
  const { dir, as, asRoot } = await clusterDir(bin);
  await initCluster(dir, as, asRoot);
  return dir;
}

/** The suite's template folder (postgres-template-setup.ts), if this runs in a vitest suite that made one. */
function suiteTemplate(): string | undefined {
  try {
    const dir = inject('postgresTemplateDir');
    return dir && existsSync(join(dir, 'data', 'PG_VERSION')) ? dir : undefined;
  } catch {
    // Outside a vitest run (a benchmark script): initdb as before.
    return undefined;
  }
}

/** A server on a free loopback port over a new cluster (a copy of `template`'s, else initdb): its folder, port and pg_ctl's start and stop. */
async function newServer(template: string | undefined): Promise<{ dir: string; port: number; start(): Promise<void>; stop(): Promise<void> }> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql: run scripts/bootstrap.sh (it installs the postgresql package).');
  const { dir, as, asRoot } = await clusterDir(bin);
  const data = join(dir, 'data');
  // A copy keeps the owner and modes (cp -a); the server refuses a data folder others may read.
  if (template) await run('cp', ['-a', join(template, 'data'), data]);
  else await initCluster(dir, as, asRoot);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=on -c max_connections=100`;
  const start = async (): Promise<void> => {
    await as('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', '-t', '30', 'start']);
  };
  const stop = async (): Promise<void> => {
    await as('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop']).catch(() => undefined);
  };
  await start();
  return { dir, port, start, stop };
}

const clusterUrl = (port: number, name: string, password = CLUSTER_PASSWORD): string => `postgres://${CLUSTER_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${name}`;

async function asSuperuser(port: number, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: clusterUrl(port, 'postgres') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A cluster of the test's own: a server it may stop and start (team-server's outage test does). */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const { dir, port, start, stop } = await newServer(suiteTemplate());
  const url = (name: string, password?: string): string => clusterUrl(port, name, password);
  return {
    port,
    url,
    async createDatabase(name) {
      await asSuperuser(port, `CREATE DATABASE ${name}`);
      return url(name);
    },
    stop,
    start,
    async destroy() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The suite's running cluster (postgres-template-setup.ts starts it once): for the setup, a
 * server over a copy of the template, its folder and port; stopped and removed by `stop`.
 */
export async function startSuiteCluster(template: string): Promise<{ dir: string; port: number; stop(): Promise<void> }> {
  const server = await newServer(template);
  return {
    dir: server.dir,
    port: server.port,
    async stop() {
      await server.stop();
      await rm(server.dir, { recursive: true, force: true });
    },
  };
}

/** The suite's running cluster's port, if this runs in a vitest suite whose setup started one. */
function suiteClusterPort(): number | undefined {
  try {
    return inject('postgresSuiteClusterPort') || undefined;
  } catch {
    return undefined;
  }
}

/**
 * For a test file that never stops or starts its server: the suite's running cluster, its
 * databases its own (each test file names its databases apart from every other file's: files may
 * run at once), dropped at `destroy` with their connections. Outside a suite with one (a bench
 * script, no PostgreSQL template), a cluster of its own as startPostgresCluster gives.
 */
export async function sharedPostgresCluster(): Promise<PostgresCluster> {
  const port = suiteClusterPort();
  if (!port) return startPostgresCluster();
  const made: string[] = [];
  const url = (name: string, password?: string): string => clusterUrl(port, name, password);
  const refuse = (): Promise<void> => Promise.reject(new Error("The suite's shared PostgreSQL cluster is not stopped or started by a test file: take one of its own (startPostgresCluster)."));
  return {
    port,
    url,
    async createDatabase(name) {
      // Left by an earlier run of this same file (a watch run, a file stopped mid-way): its name is this file's alone.
      await asSuperuser(port, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await asSuperuser(port, `CREATE DATABASE ${name}`);
      made.push(name);
      return url(name);
    },
    stop: refuse,
    start: refuse,
    async destroy() {
      for (const name of made.splice(0)) await asSuperuser(port, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/**
 * A throw-away PostgreSQL cluster for tests: Debian's server binaries (`postgresql`, installed by
 * scripts/bootstrap.sh), initdb into a temp dir, started with pg_ctl on a free loopback port,
 * password sign-in (scram-sha-256), removed at the end. initdb refuses to run as root, so under
 * root the cluster belongs to the `postgres` system user (`runuser`).
 *
 * In the integration suite initdb runs once (postgres-template-setup.ts, a vitest globalSetup):
 * each cluster is a copy of that stopped, freshly made one (the same as its own initdb would
 * make), still a server of its own on its own port, so a test may stop and start it.
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

export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql: run scripts/bootstrap.sh (it installs the postgresql package).');
  const { dir, as, asRoot } = await clusterDir(bin);
  const data = join(dir, 'data');
  const template = suiteTemplate();
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
  const url = (name: string, password = CLUSTER_PASSWORD): string => `postgres://${CLUSTER_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${name}`;
  return {
    port,
    url,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url('postgres') });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
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

/**
 * A throw-away PostgreSQL cluster for tests: Debian's server binaries (`postgresql`, installed by
 * scripts/bootstrap.sh), initdb into a temp dir, started with pg_ctl on a free loopback port,
 * password sign-in (scram-sha-256), removed at the end. initdb refuses to run as root, so under
 * root the cluster belongs to the `postgres` system user (`runuser`).
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

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

export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql: run scripts/bootstrap.sh (it installs the postgresql package).');
  const dir = await mkdtemp(join(tmpdir(), 'clarity-pg-'));
  const data = join(dir, 'data');
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  await chmod(dir, 0o700);
  const pwfile = join(dir, 'pwfile');
  await writeFile(pwfile, CLUSTER_PASSWORD, { mode: 0o600 });
  if (asRoot) await run('chown', ['postgres:postgres', pwfile]);
  const as = (command: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args]) : run(join(bin, command), args));
  await as('initdb', ['-D', data, '-U', CLUSTER_USER, '--auth=scram-sha-256', `--pwfile=${pwfile}`, '--no-sync', '-E', 'UTF8', '--locale=C']);
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

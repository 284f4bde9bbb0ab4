// A throwaway PostgreSQL cluster for tests: Debian's postgresql package
// (initdb, pg_ctl) run as an unprivileged user in a temporary folder, on a
// free port, listening on loopback only, trust auth. `.ci/run` installs the
// package when it is missing.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { register, startTime } from './run-registry.js';

export interface TempPostgres {
  /** postgres://…/postgres */
  url: string;
  port: number;
  /** A fresh empty database; its URL. */
  database(name?: string): Promise<string>;
  stop(): void;
}

const BIN_DIRS = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'];

export function postgresBin(): string | undefined {
  const fromEnv = process.env.SKEIN_TEST_PG_BIN;
  if (fromEnv) return fromEnv;
  return BIN_DIRS.find((d) => fs.existsSync(path.join(d, 'initdb')));
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

let counter = 0;

export async function startTempPostgres(): Promise<TempPostgres> {
  const bin = postgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed (apt-get install -y postgresql); set SKEIN_TEST_PG_BIN to its bin folder');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skein-pg-'));
  // Recorded before it runs: a run killed while initdb works leaves the folder to the next run's sweep.
  let forget = register({ kind: 'postgres', what: 'PostgreSQL test cluster', path: dir });
  const data = path.join(dir, 'data');
  // PostgreSQL refuses to run as root: as root, the cluster belongs to `nobody`.
  const asUser = process.getuid?.() === 0 ? ['runuser', '-u', 'nobody', '--'] : [];
  if (asUser.length) fs.chownSync(dir, 65534, 65534);
  const run = (cmd: string, args: string[]) => {
    const [file, ...rest] = [...asUser, path.join(bin, cmd), ...args];
    return execFileSync(file!, rest, { stdio: 'pipe', cwd: dir });
  };
  const stop = () => {
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // Already gone, or never started.
    }
    fs.rmSync(dir, { recursive: true, force: true });
    forget();
  };
  let port: number;
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
    port = await freePort();
    run('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-w', '-t', '120', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=on`, 'start']);
    const postmaster = Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const recorded = forget;
    forget = register({ kind: 'postgres', what: 'PostgreSQL test cluster', path: dir, pid: postmaster, started: startTime(postmaster) });
    recorded();
  } catch (e) {
    stop();
    throw e;
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    async database(name = `skein_${process.pid}_${++counter}`) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    stop,
  };
}

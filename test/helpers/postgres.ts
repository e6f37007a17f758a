// A private, throw-away PostgreSQL server for tests: `initdb` in a temp folder, `pg_ctl start` on a free
// loopback port with its socket in that folder, stopped and removed after. As root the binaries run as
// the `postgres` user (`runuser -u postgres --`; the temp folder is chowned to it).
//
// When the binaries are absent: outside CI the caller skips with a clear message; with CI set (`CI=true`,
// as .ci/run does) a missing PostgreSQL FAILS, so CI can never pass without the PostgreSQL tests.
//
// Usage (one server per test file; one fresh database per test):
//   const pg = await startPostgres();            // undefined → skip (pgSkipReason says why)
//   after(() => pg?.stop());
//   const url = await pg.createDatabase();       // postgres://parley@127.0.0.1:PORT/t_1
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface PgServer {
  /** Base URL (database `postgres`), e.g. `postgres://parley@127.0.0.1:5433/postgres`. */
  readonly url: string;
  readonly port: number;
  /** Creates a fresh empty database and returns its URL. */
  createDatabase(): Promise<string>;
  /** Stops the server (`pg_ctl stop -m fast`); it can be started again with {@link start}. */
  halt(): void;
  /** Starts it again on the same port and data. */
  start(): void;
  /** Stops the server for good and removes its folder. Idempotent. */
  stop(): Promise<void>;
}

/** Why PostgreSQL tests are skipped here, or `undefined` when the binaries are present. */
export const pgSkipReason: string | undefined =
  findBin('initdb') && findBin('pg_ctl')
    ? undefined
    : 'PostgreSQL binaries (initdb, pg_ctl) not found: install Debian package postgresql to run the PostgreSQL store tests';

const inCi = () => /^(1|true|yes)$/i.test(process.env.CI ?? '');

function findBin(name: string): string | undefined {
  const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) {
    const p = `/usr/lib/postgresql/${v}/bin/${name}`;
    if (existsSync(p)) return p;
  }
  const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts a private PostgreSQL server, or returns `undefined` when the binaries are absent outside CI.
 * @throws Error when the binaries are absent in CI, or the server fails to start (with its log).
 */
export async function startPostgres(): Promise<PgServer | undefined> {
  if (pgSkipReason) {
    if (inCi()) throw new Error(`${pgSkipReason} (CI is set, so this is a failure, not a skip)`);
    return undefined;
  }
  const initdb = findBin('initdb')!;
  const pgCtl = findBin('pg_ctl')!;
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'parley-pg-'));
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  if (root) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const run = (bin: string, args: string[]) => {
    const [cmd, argv] = root ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
    const r = spawnSync(cmd, argv, { encoding: 'utf8', timeout: 60_000 });
    if (r.status !== 0) {
      let tail = '';
      try {
        tail = execFileSync('tail', ['-n', '20', log], { encoding: 'utf8' });
      } catch {
        /* no log yet */
      }
      throw new Error(`${bin} ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr || r.stdout}\n${tail}`);
    }
  };
  run(initdb, ['-D', data, '-U', 'parley', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const port = await freePort();
  // fsync stays on (durability tests); loopback TCP only; the socket lives in our folder.
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=100`;
  const start = () => run(pgCtl, ['-D', data, '-o', opts, '-l', log, '-w', '-t', '60', 'start']);
  const halt = () => run(pgCtl, ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
  start();
  const url = `postgres://parley@127.0.0.1:${port}/postgres`;
  let n = 0;
  let stopped = false;
  return {
    url,
    port,
    async createDatabase() {
      const name = `t_${process.pid}_${++n}`;
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query(`CREATE DATABASE ${name}`); // name built from digits only
      } finally {
        await c.end();
      }
      return `postgres://parley@127.0.0.1:${port}/${name}`;
    },
    halt,
    start,
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        run(pgCtl, ['-D', data, '-m', 'immediate', '-w', '-t', '60', 'stop']);
      } catch {
        /* already stopped */
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

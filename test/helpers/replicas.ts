// A throw-away gateway cluster for tests and the bench: N `parley serve --http` replicas (built dist/) on
// one private PostgreSQL and one PARLEY_SECRET, behind a real HAProxy in plain round-robin, WITHOUT
// session affinity (docs/scaling.md). Two tenants × two users with fixed tokens; the downstream server is
// the SDK v2 dual-era fixture (tools `ask` and `roots`).
//
//   const c = await startCluster({ replicas: 3 });   // undefined → skip (c.skipReason says why)
//   … c.lbUrl, c.replicas[i].url, c.kill(i, 'SIGKILL'), c.restart(i) …
//   await c.stop();
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hashToken } from '../../src/gateway/index.js';
import { exitOf, isolatedEnv } from './cli.js';
import { pgSkipReason, startPostgres } from './postgres.js';
import type { PgServer } from './postgres.js';

export const MAIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
export const FIXTURE = fileURLToPath(new URL('../fixtures/servers-host/v2-dual.mjs', import.meta.url));
/**
 * The fixture's timeouts: under a loaded CI machine its start took over the default 10 s probe bound,
 * and a dual-era server taken as 2025-era cannot have the prompts of calls from several sessions told
 * apart on stdio, which these tests need (docs/config.md, `probeMs`).
 */
export const DUAL_TIMEOUTS = { startupMs: 60_000, probeMs: 60_000 };
export const HAPROXY = '/usr/sbin/haproxy';
export const SECRET = 'replicas share this secret: 32+ bytes';
export const TOKENS: Record<string, string> = {
  'acme/alice': 'pt_r-acme-alice',
  'acme/bob': 'pt_r-acme-bob',
  'globex/alice': 'pt_r-globex-alice',
  'globex/carol': 'pt_r-globex-carol',
};
export const IDS = Object.keys(TOKENS);
const START_MS = 30_000;

/** Why the cluster cannot run here (no HAProxy outside CI, no dist/), else undefined. */
export const clusterSkipReason: string | undefined =
  !existsSync(HAPROXY) && !process.env.CI
    ? `${HAPROXY} not found: install Debian package haproxy`
    : !existsSync(MAIN)
      ? 'dist/ missing: run npm run build'
      : undefined;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** The HAProxy configuration docs/scaling.md shows: round-robin, no stickiness, HTTP health checks. */
export function haproxyConfig(lbPort: number, ports: number[]): string {
  return [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 31m',
    '  timeout server 31m',
    '  timeout check 2s',
    '  retries 2',
    '  option redispatch',
    '  option http-no-delay',
    'frontend mcp',
    `  bind 127.0.0.1:${lbPort}`,
    '  default_backend replicas',
    'backend replicas',
    '  balance roundrobin',
    // Any HTTP answer (401 without a token) means the replica's event loop runs; a hung one times out.
    '  option httpchk',
    '  http-check send meth GET uri /mcp ver HTTP/1.1 hdr host 127.0.0.1',
    '  http-check expect rstatus ^[234]',
    ...ports.map((p, i) => `  server r${i + 1} 127.0.0.1:${p} check inter 500 fall 3 rise 1 on-marked-down shutdown-sessions`),
    '',
  ].join('\n');
}

export const NGINX = '/usr/sbin/nginx';

/**
 * The nginx configuration docs/scaling.md shows (round-robin, no affinity), with its files under `dir`.
 * `readTimeout`: `proxy_read_timeout` (the docs' 45s: 3 × the replicas' 15 s keep-alive).
 */
export function nginxConfig(dir: string, lbPort: number, ports: number[], readTimeout = '45s'): string {
  return [
    ...(process.getuid?.() === 0 ? ['user root;'] : []),
    'worker_processes 1;',
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/nginx-error.log;`,
    'events { worker_connections 1024; }',
    'http {',
    '  access_log off;',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((k) => `  ${k}_temp_path ${dir}/nginx-${k};`),
    '  upstream parley {',
    ...ports.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`),
    '    keepalive 32;',
    '  }',
    '  server {',
    `    listen 127.0.0.1:${lbPort};`,
    '    location / {',
    '      proxy_pass http://parley;',
    '      proxy_http_version 1.1;',
    '      proxy_set_header Connection "";',
    '      proxy_set_header Host $host;',
    '      proxy_buffering off;',
    '      proxy_request_buffering off;',
    '      proxy_connect_timeout 2s;',
    `      proxy_read_timeout ${readTimeout};`,
    '      proxy_next_upstream error timeout;',
    '    }',
    '  }',
    '}',
    '',
  ].join('\n');
}

export interface Replica {
  port: number;
  url: string;
  child: ChildProcess;
  log: string[];
}

export interface Cluster {
  lbUrl: string;
  storeUrl: string;
  replicas: Replica[];
  dir: string;
  /** Sends `signal` to replica i and, for SIGKILL, waits for its exit. */
  kill(i: number, signal: NodeJS.Signals): Promise<void>;
  /** Starts replica i again on its port. */
  restart(i: number): Promise<void>;
  /** Starts nginx (round-robin, {@link nginxConfig}) in front of the replicas; returns its MCP URL. */
  nginx(readTimeout?: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Starts PostgreSQL, `replicas` replicas and HAProxy.
 * @returns undefined when PostgreSQL binaries are absent outside CI (see pgSkipReason)
 */
export async function startCluster(o: {
  replicas: number;
  env?: Record<string, string>;
  /** Extra node flags for each replica (e.g. a V8 GC schedule). */
  nodeArgs?: string[];
  /** Merged into parley.json `gateway` (e.g. `oauth`). */
  gateway?: Record<string, unknown>;
  /** parley.json `policy` entries replacing the defaults below. */
  policy?: Record<string, unknown>;
  /** More `mcpServers` entries beside `v2` (e.g. an OAuth-protected HTTP server). */
  servers?: Record<string, unknown>;
}): Promise<Cluster | undefined> {
  const pg: PgServer | undefined = await startPostgres();
  if (!pg) return undefined;
  void pgSkipReason;
  const dir = mkdtempSync(join(tmpdir(), 'parley-cluster-'));
  const storeUrl = await pg.createDatabase();
  const cfg = join(dir, 'parley.json');
  const users = (t: string) =>
    Object.fromEntries(IDS.filter((i) => i.startsWith(`${t}/`)).map((i) => [i.slice(t.length + 1), { tokenSha256: hashToken(TOKENS[i]) }]));
  // The broker's limits (the rate limit is shared by the replicas, the pending cap is per replica); raised
  // so load measures delivery, not rate limiting.
  writeFileSync(
    cfg,
    JSON.stringify({
      mcpServers: { v2: { command: process.execPath, args: [FIXTURE], timeouts: DUAL_TIMEOUTS }, ...o.servers },
      policy: { maxPendingPerServer: 200, burst: 2000, ratePerMinute: 60000, ...o.policy },
      gateway: { maxPendingPerUser: 200, tenants: { acme: { users: users('acme') }, globex: { users: users('globex') } }, ...o.gateway },
    }),
  );
  const replicas: Replica[] = [];
  let haproxy: ChildProcess | undefined;
  let nginx: ChildProcess | undefined;

  async function startReplica(port: number): Promise<Replica> {
    const child = spawn(
      process.execPath,
      [...(o.nodeArgs ?? []), MAIN, 'serve', '--http', '--headless', '--port', String(port), '--config', cfg, '--store', storeUrl],
      {
        env: { ...process.env, ...isolatedEnv(dir), PARLEY_SECRET: SECRET, ...o.env },
        cwd: dir,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    const log: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`replica on ${port} did not serve within ${START_MS} ms:\n${log.join('')}`)),
        START_MS,
      );
      child.stderr!.on('data', (d) => {
        log.push(String(d));
        if (/serving MCP at /.test(log.join(''))) clearTimeout(timer), resolve();
      });
      child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`replica exited ${code}:\n${log.join('')}`))));
    });
    return { port, url: `http://127.0.0.1:${port}/mcp`, child, log };
  }

  const stop = async () => {
    haproxy?.kill('SIGTERM');
    nginx?.kill('SIGTERM');
    for (const r of replicas) {
      r.child.kill('SIGCONT');
      r.child.kill('SIGKILL');
    }
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // The first replica migrates the empty database; the others start once it serves.
    replicas.push(await startReplica(await freePort()));
    replicas.push(...(await Promise.all(Array.from({ length: o.replicas - 1 }, () => freePort().then(startReplica)))));
    const lbPort = await freePort();
    const hcfg = join(dir, 'haproxy.cfg');
    writeFileSync(
      hcfg,
      haproxyConfig(
        lbPort,
        replicas.map((r) => r.port),
      ),
    );
    const checked = spawnSync(HAPROXY, ['-c', '-f', hcfg], { encoding: 'utf8' });
    if (checked.status !== 0) throw new Error(`haproxy -c: ${checked.stdout}${checked.stderr}`);
    haproxy = spawn(HAPROXY, ['-db', '-f', hcfg], { stdio: 'ignore' });
    const lbUrl = `http://127.0.0.1:${lbPort}/mcp`;
    const deadline = Date.now() + START_MS;
    for (;;) {
      const ok = await fetch(lbUrl, { method: 'GET' }).then(
        (r) => r.status === 401,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error('haproxy did not answer');
      await new Promise((r) => setTimeout(r, 100));
    }
    // Every server up in HAProxy's eyes (health check inter 500 ms, rise 1).
    await new Promise((r) => setTimeout(r, 700));
    return {
      lbUrl,
      storeUrl,
      replicas,
      dir,
      async kill(i, signal) {
        const r = replicas[i];
        const exited = exitOf(r.child);
        r.child.kill(signal);
        if (signal === 'SIGKILL') await exited;
      },
      async restart(i) {
        replicas[i] = await startReplica(replicas[i].port);
      },
      async nginx(readTimeout) {
        const port = await freePort();
        const ncfg = join(dir, 'nginx.conf');
        writeFileSync(
          ncfg,
          nginxConfig(
            dir,
            port,
            replicas.map((r) => r.port),
            readTimeout,
          ),
        );
        const checked = spawnSync(NGINX, ['-t', '-c', ncfg, '-p', dir], { encoding: 'utf8' });
        if (checked.status !== 0) throw new Error(`nginx -t: ${checked.stdout}${checked.stderr}`);
        nginx = spawn(NGINX, ['-c', ncfg, '-p', dir, '-g', 'daemon off;'], { stdio: 'ignore' });
        const url = `http://127.0.0.1:${port}/mcp`;
        const end = Date.now() + START_MS;
        while (
          !(await fetch(url).then(
            (r) => r.status === 401,
            () => false,
          ))
        ) {
          if (Date.now() > end) throw new Error('nginx did not answer');
          await new Promise((r) => setTimeout(r, 100));
        }
        return url;
      },
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

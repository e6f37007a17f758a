// `replicas` group (issue 13 item 8): the gateway on PostgreSQL, beside SQLite and the raw SDK in the
// same run. Skipped, with a message, when the PostgreSQL binaries or HAProxy are missing.
//
// Latency per elicitation: one SDK v2 client per side (2025-11-25, sessionful Streamable HTTP; the
// downstream pushes the bench form and the client accepts at once), K sequential calls of the `hold`
// tool per loop, R rounds with every side once per round (order rotating); ratios are medians of
// per-round ratios with their quartiles (bench/peers.ts). Sides, every parley one a `parley serve --http`
// process from dist/ in front of one stdio bench/fixtures/hold-server.mjs:
//   raw SDK server (hold-server.mjs http) · 1 replica on SQLite · 1 replica on PostgreSQL ·
//   1 replica on PostgreSQL behind HAProxy · 3 replicas on PostgreSQL behind HAProxy (round-robin, no
//   affinity: 2 of 3 requests are forwarded) · every request forwarded (the session held by replica A,
//   every request after `initialize` sent to replica B).
// Heap per pending session: bench/gateway.ts's measurement (N sessions each holding one pending prompt,
// the gateway process measured alone) for the raw server, the gateway on SQLite and on PostgreSQL.
//
//   npm run bench replicas       (env: PARLEY_BENCH_REPLICA_K, _ROUNDS, PARLEY_BENCH_SESSIONS)
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { freePort, HAPROXY } from '../test/helpers/replicas.js';
import { pgSkipReason, startPostgres } from '../test/helpers/postgres.js';
import { side, start } from './gateway.js';
import type { SideResult } from './gateway.js';
import type { BenchRow } from './lib.js';
import { ANSWER, envInt, medianOf, repoPath, roundRatio, roundSpread } from './peers.js';
import type { LoopTime } from './peers.js';

const MAIN = repoPath('dist/src/cli/main.js');
const HOLD = repoPath('bench/fixtures/hold-server.mjs');
const SECRET = 'bench replicas share this secret, 32+ bytes';

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

async function replica(dir: string, cfg: string, store: string, port: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [MAIN, 'serve', '--http', '--headless', '--port', String(port), '--config', cfg, '--store', store],
    {
      env: { ...process.env, HOME: dir, XDG_STATE_HOME: join(dir, 'state'), XDG_CONFIG_HOME: join(dir, 'config'), PARLEY_SECRET: SECRET },
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`replica on ${port} not serving within 60 s: ${log}`)), 60_000);
    child.stderr!.on('data', (d) => {
      log += String(d);
      if (log.includes('serving MCP at ')) clearTimeout(t), resolve();
    });
    child.once('exit', (c) => (clearTimeout(t), reject(new Error(`replica exited ${c}: ${log}`))));
  });
  return child;
}

async function session(url: string, tool: string, fetchFn?: Fetch) {
  const c = new Client({ name: 'bench', version: '1' }, { capabilities: { elicitation: { form: {} } } });
  c.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: ANSWER }) as never);
  await c.connect(new StreamableHTTPClientTransport(new URL(url), fetchFn ? { fetch: fetchFn as never } : {}));
  const want = `held ${ANSWER.name}`;
  const loop = async (k: number): Promise<LoopTime> => {
    const t0 = performance.now();
    for (let i = 0; i < k; i++) {
      const r = (await c.callTool({ name: tool, arguments: {} }, { timeout: 60_000 })) as CallToolResult;
      const got = ((r.content ?? []) as Array<{ text?: string }>).map((x) => x.text).join('');
      if (got !== want) throw new Error(`${url}: expected "${want}", got "${got}"`);
    }
    return { wallMs: performance.now() - t0, hostCpuMs: 0, serverCpuMs: 0 };
  };
  return { loop, close: () => c.close() };
}

export async function run(): Promise<BenchRow[]> {
  const skip = (why: string): BenchRow[] => {
    console.log(`  replicas group skipped: ${why}`);
    return [];
  };
  if (pgSkipReason) return skip(pgSkipReason);
  if (!existsSync(HAPROXY)) return skip(`${HAPROXY} not found: install Debian package haproxy`);
  if (!existsSync(MAIN)) return skip('dist/ missing: run npm run build (npm run bench does)');
  const K = envInt('PARLEY_BENCH_REPLICA_K', 40);
  const R = envInt('PARLEY_BENCH_REPLICA_ROUNDS', 9);
  // 1,000 like the gateway group: with fewer, the process's own growth during the run (compiled code,
  // ≈ 0.6-0.8 KB per session at N=200) is counted as if each session held it.
  const N = envInt('PARLEY_BENCH_SESSIONS', 1000);
  const pg = (await startPostgres())!;
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-replicas-'));
  const children: ChildProcess[] = [];
  const closers: Array<() => Promise<unknown>> = [];
  try {
    const pgUrl = await pg.createDatabase();
    const cfg = join(dir, 'parley.json');
    writeFileSync(
      cfg,
      JSON.stringify({
        mcpServers: { bench: { command: process.execPath, args: [HOLD, 'stdio'] } },
        policy: { maxPendingPerServer: 10_000, burst: 1_000_000, ratePerMinute: 1_000_000 },
        gateway: { maxPendingPerUser: 10_000, maxSessionsPerUser: 10_000 },
      }),
    );
    const [pa, pb, pc, ps] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    // The first PostgreSQL replica migrates the database; the others start after it.
    children.push(await replica(dir, cfg, pgUrl, pa));
    children.push(
      ...(await Promise.all([replica(dir, cfg, pgUrl, pb), replica(dir, cfg, pgUrl, pc), replica(dir, cfg, join(dir, 'sqlite.db'), ps)])),
    );
    const [lb1, lb3] = await Promise.all([freePort(), freePort()]);
    const hcfg = join(dir, 'haproxy.cfg');
    const backend = (name: string, ports: number[]) => [
      `backend ${name}`,
      '  balance roundrobin',
      ...ports.map((p, i) => `  server ${name}${i} 127.0.0.1:${p}`),
    ];
    writeFileSync(
      hcfg,
      [
        'global',
        '  maxconn 4096',
        'defaults',
        '  mode http',
        '  timeout connect 2s',
        '  timeout client 31m',
        '  timeout server 31m',
        '  option http-no-delay', // SSE messages go out at once (without it, ≈ 200 ms more per elicitation here)
        `frontend one`,
        `  bind 127.0.0.1:${lb1}`,
        '  default_backend b1',
        `frontend three`,
        `  bind 127.0.0.1:${lb3}`,
        '  default_backend b3',
        ...backend('b1', [pa]),
        ...backend('b3', [pa, pb, pc]),
        '',
      ].join('\n'),
    );
    const checked = spawnSync(HAPROXY, ['-c', '-f', hcfg], { encoding: 'utf8' });
    if (checked.status !== 0) throw new Error(`haproxy -c: ${checked.stdout}${checked.stderr}`);
    const hap = spawn(HAPROXY, ['-db', '-f', hcfg], { stdio: 'ignore' });
    children.push(hap);
    await new Promise((r) => setTimeout(r, 500));
    const url = (p: number) => `http://127.0.0.1:${p}/mcp`;
    const raw = await start('raw SDK server', ['--expose-gc', HOLD, 'http']);
    closers.push(() => raw.close());
    // Every request after initialize goes to replica B: the session is A's.
    let first = true;
    const toB: Fetch = (_u, init) => {
      const target = first ? url(pa) : url(pb);
      first = false;
      return fetch(target, init);
    };
    const sides = [
      { label: 'raw SDK v2 server (baseline)', s: await session(raw.url, 'hold') },
      { label: '1 replica, SQLite', s: await session(url(ps), 'bench__hold') },
      { label: '1 replica, PostgreSQL', s: await session(url(pa), 'bench__hold') },
      { label: '1 replica, PostgreSQL, behind HAProxy', s: await session(url(lb1), 'bench__hold') },
      { label: '3 replicas, PostgreSQL, behind HAProxy round-robin', s: await session(url(lb3), 'bench__hold') },
      { label: 'every request forwarded (held by A, sent to B), PostgreSQL', s: await session(url(pa), 'bench__hold', toB) },
    ];
    for (const x of sides) closers.push(() => x.s.close());
    for (const x of sides) await x.s.loop(10); // warm-up
    const rounds: LoopTime[][] = sides.map(() => []);
    for (let r = 0; r < R; r++)
      for (let j = 0; j < sides.length; j++) {
        const i = (r + j) % sides.length;
        rounds[i].push(await sides[i].s.loop(K));
      }
    const ms = (i: number) => medianOf(rounds[i].map((t) => t.wallMs)) / K;
    const how = `one session per side, ${K} sequential elicitations per loop, ${R} rounds (order rotating); ratios are medians of per-round ratios`;
    const rows: BenchRow[] = sides.map((x, i) => ({
      group: 'replicas',
      name: `${x.label}: per elicitation`,
      value: ms(i),
      unit: 'ms',
      ratio: roundRatio(rounds, i, 0, 'wallMs'),
      ratioTo: 'raw SDK',
      note: i === 0 ? how : roundSpread(rounds, i, 0, 'wallMs'),
    }));
    const pgVsSqlite = roundRatio(rounds, 2, 1, 'wallMs');
    const three = roundRatio(rounds, 4, 3, 'wallMs');
    const fwd = roundRatio(rounds, 5, 2, 'wallMs');
    rows.push(
      {
        group: 'replicas',
        name: '1 replica: PostgreSQL ÷ SQLite per elicitation',
        value: pgVsSqlite,
        unit: '×',
        note: roundSpread(rounds, 2, 1, 'wallMs'),
      },
      {
        group: 'replicas',
        name: '3 replicas ÷ 1 replica behind HAProxy, per elicitation',
        value: three,
        unit: '×',
        target: '≤ 1.3×',
        met: three <= 1.3,
        note: `${roundSpread(rounds, 4, 3, 'wallMs')}; with 3 replicas 2 of 3 requests of a session land on a replica that forwards them`,
      },
      {
        group: 'replicas',
        name: 'a forwarded request: every request forwarded ÷ direct, per elicitation',
        value: fwd,
        unit: '×',
        note: `${roundSpread(rounds, 5, 2, 'wallMs')}; +${(ms(5) - ms(2)).toFixed(2)} ms per elicitation (a call and its answer: 2 forwarded POSTs)`,
      },
    );
    // Heap per pending session, gateway process alone (bench/gateway.ts).
    const o = { sessions: N, warmup: 10, concurrency: 50, phaseMs: 120_000, rounds: 1, from: 'dist' as const };
    const holdSide = (label: string, args: string[], tool: string, check: (m: { stats?: Record<string, number> }) => string | undefined) =>
      side(label, args, tool, o, check);
    const rawMem = await holdSide('raw SDK server', ['--expose-gc', HOLD, 'http'], 'hold', () => undefined);
    const gwArgs = (store?: string) => [
      '--expose-gc',
      repoPath('bench/fixtures/gateway-proc.mjs'),
      'dist',
      String(N + 10),
      ...(store ? [store] : []),
    ];
    const open = (m: { stats?: Record<string, number> }) =>
      m.stats?.openCalls === N ? undefined : `expected ${N} open calls: ${JSON.stringify(m.stats)}`;
    const sqliteMem = await holdSide('gateway on SQLite', gwArgs(), 'bench__hold', open);
    const pgMem = await holdSide('gateway on PostgreSQL', gwArgs(await pg.createDatabase()), 'bench__hold', open);
    const per = (s: SideResult) => (s.pending.heap - s.base.heap) / N / 1000;
    rows.push(
      {
        group: 'replicas',
        name: 'raw SDK v2 server: heap per session holding a pending elicitation (baseline)',
        value: per(rawMem),
        unit: 'KB / session',
        ratio: 1,
        ratioTo: 'raw SDK',
        note: `N=${N} sessions, heap after forced GC, process measured alone`,
      },
      {
        group: 'replicas',
        name: 'gateway on SQLite: heap per pending session',
        value: per(sqliteMem),
        unit: 'KB / session',
        ratio: per(sqliteMem) / per(rawMem),
        ratioTo: 'raw SDK',
      },
      {
        group: 'replicas',
        name: 'gateway on PostgreSQL: heap per pending session',
        value: per(pgMem),
        unit: 'KB / session',
        ratio: per(pgMem) / per(rawMem),
        ratioTo: 'raw SDK',
        target: '≤ 70 KB',
        met: per(pgMem) <= 70,
      },
    );
    return rows;
  } finally {
    for (const c of closers) await c().catch(() => undefined);
    for (const c of children) c.kill('SIGKILL');
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

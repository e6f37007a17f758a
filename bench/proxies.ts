// `proxies` group (issue 17 item 10): parley's gateway against the proxies people use instead, side by
// side in the same run, in front of the same downstream server (bench/fixtures/proxy-server.mjs, raw
// SDK v2 over stdio), for SDK v2 clients on 2025-11-25 over Streamable HTTP:
// - parley: `parley serve --http` from dist/, as users run it: a file-backed SQLite store (WAL,
//   synchronous=NORMAL, the default; every tool call and elicitation audited), the web console for prompts the client
//   cannot answer, the policy's rate limit opened to the bench's load;
// - supergateway (`--stdio … --outputTransport streamableHttp --stateful`: a session needs state for
//   the server's elicitation to reach its client; one downstream process per session, its design);
// - mcp-proxy (`--server stream`: one downstream process; it declares no client capabilities
//   downstream, so it cannot elicit and is left out of the elicitation figure).
// Figures, interleaved rounds with the order rotating (A B C, B C A, …): per `tools/call` (`echo`)
// client wall time and the gateway process's CPU time (all its threads, /proc/<pid>/task/*/schedstat);
// per elicitation round trip (`elicit_loop {n}` with a client that accepts each form at once) vs
// supergateway; throughput of 8 clients calling at once; and over stdio the time `parley serve --stdio`
// adds per call to a direct stdio connection to the same server. Ratios are medians of per-round ratios
// against the peer that is faster (or has the higher throughput) by median; notes give the quartiles.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { quartiles, type BenchRow } from './lib.js';
import { ANSWER, envInt, medianOf, repoPath } from './peers.js';

export interface ProxiesBenchOptions {
  /** Sequential `tools/call`s per timed loop. @default 300 (env PARLEY_BENCH_CALLS) */
  calls?: number;
  /** Elicitations per timed `elicit_loop`. @default 50 */
  elicitations?: number;
  /** Concurrent clients of the throughput figure. @default 8 */
  clients?: number;
  /** Calls each concurrent client makes per timed throughput pass. @default 100 */
  callsPerClient?: number;
  /** Interleaved rounds. @default 11 (env PARLEY_BENCH_PROXY_ROUNDS) */
  rounds?: number;
  /** Sequential `tools/call`s per stdio loop. @default 500 */
  stdioCalls?: number;
  /** Calls of the warm-up before the timed rounds (a sixth of it per concurrent client, a third as elicitations). @default 300 */
  warmup?: number;
  /** Extra Node flags for the parley gateway process (e.g. `--cpu-prof`). @default env PARLEY_BENCH_GATEWAY_FLAGS */
  gatewayFlags?: string[];
}

const SERVER = repoPath('bench/fixtures/proxy-server.mjs');
const SDK_PROXY = repoPath('bench/fixtures/sdk-proxy.mjs');
const SDK_HTTP_PROXY = repoPath('bench/fixtures/sdk-http-proxy.mjs');
const PARLEY = repoPath('dist/src/cli/main.js');
const SUPERGATEWAY = repoPath('node_modules/supergateway/dist/index.js');
const MCP_PROXY = repoPath('node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs');
const READY_MS = 60_000;
const CALL_MS = 120_000;

/** CPU time of every thread of process `pid`, ms (schedstat: ns resolution, unlike /proc/<pid>/stat). */
export function processCpuMs(pid: number): number {
  let ns = 0;
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return ns / 1e6;
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const c = createConnection({ port, host: '127.0.0.1' });
    c.once('connect', () => (c.destroy(), resolve(true)));
    c.once('error', () => resolve(false));
  });

/** A gateway process serving Streamable HTTP. */
interface Gateway {
  label: string;
  url: string;
  /** Its tool names for the fixture's tools. */
  tool: (name: string) => string;
  cpuMs(): number;
  close(): Promise<void>;
}

async function startGateway(
  label: string,
  args: string[],
  port: number,
  path: string,
  tool: (n: string) => string,
  env: NodeJS.ProcessEnv,
): Promise<Gateway> {
  const child = spawn(process.execPath, args, { cwd: repoPath('.'), env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const close = async () => {
    // The process group: supergateway starts its downstream through a shell.
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
    const t = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 10_000);
    await exited;
    clearTimeout(t);
  };
  const deadline = Date.now() + READY_MS;
  while (!(await accepts(port))) {
    if (child.exitCode !== null) throw new Error(`${label} exited (code ${child.exitCode}); stderr: ${stderr.trim() || '(empty)'}`);
    if (Date.now() > deadline) {
      await close();
      throw new Error(`${label} did not listen on port ${port} within ${READY_MS} ms; stderr: ${stderr.trim() || '(empty)'}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { label, url: `http://127.0.0.1:${port}${path}`, tool, cpuMs: () => processCpuMs(child.pid!), close };
}

/** An SDK v2 client (default negotiation: 2025-11-25) that accepts every form with the bench answer. */
async function connect(transport: StreamableHTTPClientTransport | StdioClientTransport): Promise<Client> {
  const client = new Client({ name: 'bench-proxy-client', version: '0.0.1' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { ...ANSWER } }));
  await client.connect(transport, { timeout: 30_000 });
  return client;
}

const text = (r: CallToolResult) => (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('');

async function echoLoop(client: Client, name: string, n: number, tag: string): Promise<void> {
  for (let i = 0; i < n; i++) {
    const want = `${tag} ${i}`;
    const r = (await client.callTool({ name, arguments: { text: want } }, { timeout: CALL_MS })) as CallToolResult;
    if (r.isError || text(r) !== want) throw new Error(`${name}: expected "${want}", got ${JSON.stringify(r.content)}`);
  }
}

async function elicitLoop(client: Client, name: string, n: number): Promise<void> {
  const r = (await client.callTool({ name, arguments: { n } }, { timeout: CALL_MS })) as CallToolResult;
  const sc = r.structuredContent as { accepted?: number } | undefined;
  if (r.isError || sc?.accepted !== n)
    throw new Error(`${name} ${n}: expected ${n} accepted, got ${JSON.stringify(r.structuredContent ?? r.content)}`);
}

/** One timed measurement: client wall time and the gateway's CPU time, ms. */
interface Sample {
  wallMs: number;
  cpuMs: number;
}

async function timed(cpu: () => number, fn: () => Promise<void>): Promise<Sample> {
  const c0 = cpu();
  const t0 = performance.now();
  await fn();
  return { wallMs: performance.now() - t0, cpuMs: cpu() - c0 };
}

/** Runs each side's `fn` once per round, order rotating; returns samples[side][round]. */
async function rotate(sides: number, rounds: number, fn: (side: number, round: number) => Promise<Sample>): Promise<Sample[][]> {
  const out: Sample[][] = Array.from({ length: sides }, () => []);
  for (let r = 0; r < rounds; r++)
    for (let j = 0; j < sides; j++) {
      const i = (r + j) % sides;
      out[i][r] = await fn(i, r);
    }
  return out;
}

/** Per-round ratios a[r] ÷ b[r] of one measure. */
const perRound = (a: Sample[], b: Sample[], k: keyof Sample) => a.map((s, r) => s[k] / b[r][k]);

const spreadNote = (xs: number[]) => {
  const q = quartiles(xs);
  return `per-round ratios ${q.q1.toFixed(2)}–${q.q3.toFixed(2)}× (quartiles of ${q.n})`;
};

export async function run(opts: ProxiesBenchOptions = {}): Promise<BenchRow[]> {
  const o = {
    calls: opts.calls ?? envInt('PARLEY_BENCH_CALLS', 300),
    elicitations: opts.elicitations ?? 50,
    clients: opts.clients ?? 8,
    callsPerClient: opts.callsPerClient ?? 100,
    rounds: opts.rounds ?? envInt('PARLEY_BENCH_PROXY_ROUNDS', 11),
    stdioCalls: opts.stdioCalls ?? 500,
    warmup: opts.warmup ?? 300,
    gatewayFlags: opts.gatewayFlags ?? (process.env.PARLEY_BENCH_GATEWAY_FLAGS ?? '').split(' ').filter(Boolean),
  };
  for (const [what, path] of [
    ['dist/src/cli/main.js (run `npm run build`; npm run bench does)', PARLEY],
    ['supergateway (a devDependency: npm install)', SUPERGATEWAY],
    ['mcp-proxy (a devDependency: npm install)', MCP_PROXY],
  ])
    if (!existsSync(path)) throw new Error(`bench proxies: ${what} is missing at ${path}`);

  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-proxies-'));
  const config = join(dir, 'parley.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { bench: { command: process.execPath, args: [SERVER] } },
      // One client asks for thousands of forms a minute; the default policy (30/min) would decline them.
      policy: { ratePerMinute: 1e9, burst: 1e9 },
    }),
  );
  // parley's state (database, console address file) stays in the temporary directory.
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_STATE_HOME: dir, XDG_CONFIG_HOME: dir, HOME: dir };
  delete env.PARLEY_GATEWAY_PID;
  const parleyArgs = (transport: string[]) => [
    ...o.gatewayFlags,
    PARLEY,
    'serve',
    ...transport,
    '--config',
    config,
    '--store',
    join(dir, 'gateway.db'),
  ];
  const gateways: Gateway[] = [];
  const clients: Client[] = [];
  const stdioClients: Client[] = [];
  try {
    const [p1, p2, p3, p4] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const plain = (n: string) => n;
    gateways.push(
      await startGateway('parley', parleyArgs(['--http', '--port', String(p1)]), p1, '/mcp', (n) => `bench__${n}`, env),
      await startGateway(
        'supergateway',
        [
          SUPERGATEWAY,
          '--stdio',
          `"${process.execPath}" "${SERVER}"`,
          '--outputTransport',
          'streamableHttp',
          '--stateful',
          '--port',
          String(p2),
          '--logLevel',
          'none',
        ],
        p2,
        '/mcp',
        plain,
        env,
      ),
      await startGateway(
        'mcp-proxy',
        [MCP_PROXY, '--port', String(p3), '--host', '127.0.0.1', '--server', 'stream', '--', process.execPath, SERVER],
        p3,
        '/mcp',
        plain,
        env,
      ),
      // The floor of any gateway on the SDK's Server and Client (no parley code; it cannot elicit).
      await startGateway('bare SDK v2 proxy', [SDK_HTTP_PROXY, String(p4), process.execPath, SERVER], p4, '/mcp', plain, env),
    );
    const [PARLEY_I, SG_I, SDK_I] = [0, 1, 3];
    // clients[side][k]: k = 0 does the sequential loops.
    const byGw: Client[][] = [];
    for (const g of gateways) {
      const cs = await Promise.all(Array.from({ length: o.clients }, () => connect(new StreamableHTTPClientTransport(new URL(g.url)))));
      clients.push(...cs);
      byGw.push(cs);
    }
    const cpu = (i: number) => () => gateways[i].cpuMs();
    const echo = (i: number, n: number, tag: string) => echoLoop(byGw[i][0], gateways[i].tool('echo'), n, tag);
    const burst = (i: number, per: number, tag: string) =>
      Promise.all(byGw[i].map((c, k) => echoLoop(c, gateways[i].tool('echo'), per, `${tag} c${k}`))).then(() => undefined);
    const elicit = (i: number, n: number) => elicitLoop(byGw[i][0], gateways[i].tool('elicit_loop'), n);
    // Warm-up: every path of every side once, the JIT settles.
    for (let i = 0; i < gateways.length; i++) {
      await echo(i, o.warmup, 'warm');
      await burst(i, Math.ceil(o.warmup / 6), 'warm');
      if (i === PARLEY_I || i === SG_I) await elicit(i, Math.ceil(o.warmup / 3));
    }
    const calls = await rotate(gateways.length, o.rounds, (i, r) => timed(cpu(i), () => echo(i, o.calls, `r${r}`)));
    const elic = await rotate(2, o.rounds, (i, _r) => timed(cpu(i), () => elicit(i, o.elicitations)));
    const thr = await rotate(gateways.length, o.rounds, (i, r) => timed(cpu(i), () => burst(i, o.callsPerClient, `t${r}`)));

    // Over stdio: a direct connection to the server vs `parley serve --stdio`, same client.
    const direct = await connect(
      new StdioClientTransport({ command: process.execPath, args: [SERVER], cwd: repoPath('.'), stderr: 'ignore' }),
    );
    stdioClients.push(direct);
    const viaParley = await connect(
      new StdioClientTransport({
        command: process.execPath,
        args: parleyArgs(['--stdio']),
        cwd: repoPath('.'),
        env: env as Record<string, string>,
        stderr: 'ignore',
      }),
    );
    stdioClients.push(viaParley);
    // The floor of any gateway on the SDK's Server and Client: the same hop with no parley code.
    const viaSdk = await connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [SDK_PROXY, process.execPath, SERVER],
        cwd: repoPath('.'),
        stderr: 'ignore',
      }),
    );
    stdioClients.push(viaSdk);
    const stdioSides: Array<[Client, string]> = [
      [direct, 'echo'],
      [viaParley, 'bench__echo'],
      [viaSdk, 'echo'],
    ];
    for (const [c, name] of stdioSides) await echoLoop(c, name, o.warmup, 'warm');
    const stdio = await rotate(stdioSides.length, o.rounds, (i, r) =>
      timed(
        () => 0,
        () => echoLoop(stdioSides[i][0], stdioSides[i][1], o.stdioCalls, `s${r}`),
      ),
    );

    // Figures.
    const med = (ss: Sample[], k: keyof Sample) => medianOf(ss.map((s) => s[k]));
    const peers = [1, 2];
    const faster = (ss: Sample[][], k: keyof Sample) => (med(ss[1], k) <= med(ss[2], k) ? 1 : 2);
    const name = (i: number) => gateways[i].label;
    const how = `SDK v2 clients, Streamable HTTP, 2025-11-25, same downstream SDK server over stdio; ${o.rounds} interleaved rounds (order rotating); ratios are medians of per-round ratios`;
    const perCall = (ss: Sample[], k: keyof Sample) => med(ss, k) / o.calls;
    const rows: BenchRow[] = [];
    for (const i of [PARLEY_I, ...peers])
      rows.push({
        group: 'proxies',
        name: `${name(i)}: tools/call${i === PARLEY_I ? ' (parley serve --http, file store, audit on)' : ''}`,
        value: perCall(calls[i], 'wallMs'),
        unit: 'ms wall / call',
        note: `${perCall(calls[i], 'cpuMs').toFixed(3)} ms gateway CPU / call; ${o.calls} sequential calls per round${i === PARLEY_I ? `; ${how}` : ''}`,
      });
    /** A ratio row: the median of per-round ratios `xs` with their quartiles (the bare SDK proxy's rows: no target). */
    const ratioRow = (label: string, xs: number[], note: string, ratioTo: string): BenchRow => {
      const q = quartiles(xs);
      return {
        group: 'proxies',
        name: label,
        value: q.median,
        unit: '×',
        ratioTo,
        spread: { q1: q.q1, q3: q.q3, n: q.n },
        note: `${note}; ${spreadNote(xs)}`,
      };
    };
    /** A ratio row with a target: median ≤ `want` (`le`) or ≥ `want`. */
    const target = (label: string, xs: number[], want: number, le: boolean, note: string, ratioTo: string): BenchRow => {
      const row = ratioRow(label, xs, note, ratioTo);
      return { ...row, target: `${le ? '≤' : '≥'} ${want.toFixed(1)}×`, met: le ? row.value <= want : row.value >= want };
    };
    const fw = faster(calls, 'wallMs');
    rows.push(
      target(
        `per tools/call wall time parley ÷ ${name(fw)} (the faster peer)`,
        perRound(calls[0], calls[fw], 'wallMs'),
        1,
        true,
        'client wall time of sequential calls',
        name(fw),
      ),
    );
    const fc = faster(calls, 'cpuMs');
    rows.push(
      target(
        `per tools/call gateway CPU parley ÷ ${name(fc)} (the cheaper peer)`,
        perRound(calls[0], calls[fc], 'cpuMs'),
        1,
        true,
        `CPU time of the gateway process (all threads), not its downstream server; parley ${perCall(calls[0], 'cpuMs').toFixed(3)} ms, ${name(fc)} ${perCall(calls[fc], 'cpuMs').toFixed(3)} ms per call`,
        name(fc),
      ),
    );
    const sdkCpu = quartiles(perRound(calls[SDK_I], calls[fc], 'cpuMs'));
    rows.push(
      ratioRow(
        `bare SDK v2 proxy (no parley code): per tools/call wall time ÷ ${name(fw)}, and gateway CPU ÷ ${name(fc)}`,
        perRound(calls[SDK_I], calls[fw], 'wallMs'),
        `bench/fixtures/sdk-http-proxy.mjs: per session an SDK Server on the SDK's Streamable HTTP transport passing tools/call to one SDK Client, the least a gateway on the SDK's Server and Client does; ${perCall(calls[SDK_I], 'wallMs').toFixed(3)} ms wall, ${perCall(calls[SDK_I], 'cpuMs').toFixed(3)} ms gateway CPU / call; CPU ÷ ${name(fc)} ${sdkCpu.median.toFixed(2)}× (quartiles ${sdkCpu.q1.toFixed(2)}–${sdkCpu.q3.toFixed(2)}); the floor under the two rows above`,
        name(fw),
      ),
    );
    const perEl = (ss: Sample[], k: keyof Sample) => med(ss, k) / o.elicitations;
    rows.push(
      target(
        'per elicitation round trip wall time parley ÷ supergateway',
        perRound(elic[PARLEY_I], elic[SG_I], 'wallMs'),
        1,
        true,
        `elicit_loop ${o.elicitations} (form pushed to the client, accepted at once): parley ${perEl(elic[0], 'wallMs').toFixed(3)} ms wall, ${perEl(elic[0], 'cpuMs').toFixed(3)} ms gateway CPU; supergateway ${perEl(elic[1], 'wallMs').toFixed(3)} ms wall, ${perEl(elic[1], 'cpuMs').toFixed(3)} ms CPU per elicitation; gateway CPU ratio ${medianOf(perRound(elic[0], elic[1], 'cpuMs')).toFixed(2)}×; parley runs each through its broker (policy, validation, two audit rows); mcp-proxy cannot elicit (it declares no elicitation capability to the server), so it has no figure`,
        'supergateway',
      ),
    );
    const total = o.clients * o.callsPerClient;
    const rate = (s: Sample) => total / (s.wallMs / 1000);
    const rates = thr.map((ss) => ss.map(rate));
    const best = medianOf(rates[1]) >= medianOf(rates[2]) ? 1 : 2;
    rows.push(
      target(
        `throughput with ${o.clients} concurrent clients parley ÷ ${name(best)} (the best peer)`,
        rates[0].map((x, r) => x / rates[best][r]),
        1,
        false,
        `${o.clients} sessions each making ${o.callsPerClient} sequential calls at once; ${peers
          .concat(PARLEY_I)
          .map((i) => `${name(i)} ${Math.round(medianOf(rates[i]))} calls/s (${(med(thr[i], 'cpuMs') / total).toFixed(3)} ms CPU / call)`)
          .join(', ')}; supergateway starts one downstream process per session`,
        name(best),
      ),
    );
    rows.push(
      ratioRow(
        `bare SDK v2 proxy (no parley code): throughput with ${o.clients} concurrent clients ÷ ${name(best)}`,
        rates[SDK_I].map((x, r) => x / rates[best][r]),
        `${Math.round(medianOf(rates[SDK_I]))} calls/s (${(med(thr[SDK_I], 'cpuMs') / total).toFixed(3)} ms CPU / call); one downstream process shared by all sessions, as parley and mcp-proxy`,
        name(best),
      ),
    );
    const added = stdio[1].map((s, r) => (s.wallMs - stdio[0][r].wallMs) / o.stdioCalls);
    const qa = quartiles(added);
    const floor = quartiles(stdio[2].map((s, r) => (s.wallMs - stdio[0][r].wallMs) / o.stdioCalls));
    rows.push({
      group: 'proxies',
      name: 'over stdio: time parley serve --stdio adds per tools/call to a direct connection',
      value: qa.median,
      unit: 'ms / call',
      target: '≤ 0.3 ms',
      met: qa.median <= 0.3,
      spread: { q1: qa.q1, q3: qa.q3, n: qa.n },
      note: `direct ${(med(stdio[0], 'wallMs') / o.stdioCalls).toFixed(3)} ms, via parley ${(med(stdio[1], 'wallMs') / o.stdioCalls).toFixed(3)} ms per call (${medianOf(perRound(stdio[1], stdio[0], 'wallMs')).toFixed(2)}×); ${o.stdioCalls} sequential calls per round, ${o.rounds} interleaved rounds; per-round differences ${qa.q1.toFixed(3)}–${qa.q3.toFixed(3)} ms (quartiles of ${qa.n}); the bare SDK proxy below adds ${floor.median.toFixed(3)} ms`,
    });
    rows.push({
      group: 'proxies',
      name: 'over stdio: time a bare SDK v2 proxy (Server + Client, no parley code) adds per tools/call',
      value: floor.median,
      unit: 'ms / call',
      spread: { q1: floor.q1, q3: floor.q3, n: floor.n },
      note: `bench/fixtures/sdk-proxy.mjs: the least a gateway on the SDK's Server and Client does (tools/list and tools/call passed to an SDK Client); the floor of the row above; same rounds, interleaved with it`,
    });
    return rows;
  } finally {
    await Promise.allSettled([...clients, ...stdioClients].map((c) => c.close()));
    await Promise.allSettled(gateways.map((g) => g.close()));
    rmSync(dir, { recursive: true, force: true });
  }
}

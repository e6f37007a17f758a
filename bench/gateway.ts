// `gateway` group: memory per upstream session holding a pending elicitation (issue 6: 1,000 sessions
// in ≤ 150 MB; issue 7: beside the raw SDK in the same run, as ratios).
//
// Each side is a child process that answers memory queries over IPC (heap after three forced GCs, and
// RSS: bench/fixtures/mem-ipc.mjs), so the N clients, which run here, are not counted:
// - raw: bench/fixtures/hold-server.mjs http: the SDK's sessionful Streamable HTTP transport, one
//   McpServer per session, whose `hold` tool asks for the bench form (the SDK's legacy shim pushes it);
// - parley: bench/fixtures/gateway-proc.mjs (from dist/ by default): createGateway over HTTP in front
//   of ONE stdio process of that same server (`bench__hold`), single-user, with a SQLite store.
// Against each: a few warm-up sessions do a whole cycle; memory is read (base); N SDK v2 clients
// connect over Streamable HTTP (2025-11-25, sessionful) (idle); each calls the tool and its
// elicitation handler holds the answer until every one of the N prompts has arrived (pending); then all
// answers are released (`name: "session <i>"`) and every call must return `held session <i>`: the
// sessions were real, and each answer reached its own call. Every wait is bounded.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult, ElicitResult } from '@modelcontextprotocol/client';
import type { BenchRow } from './lib.js';
import { ANSWER, envInt, repoPath } from './peers.js';

export interface GatewayBenchOptions {
  /** Upstream sessions held at once. @default 1000 (env PARLEY_BENCH_SESSIONS) */
  sessions?: number;
  /** Sessions that run a whole cycle before the base reading. @default 10 */
  warmup?: number;
  /** Connections being opened at once. @default 50 */
  concurrency?: number;
  /** Bound on each phase (all connected, all pending, all completed), ms. @default 120_000 */
  phaseMs?: number;
  /**
   * Calls each session makes, one after another; memory is read while the last one is pending, so
   * `rounds: 2` shows what a session that has answered before costs. @default 1 (env PARLEY_BENCH_ROUNDS)
   */
  rounds?: number;
  /** Run the gateway from `dist/` (built by `npm run bench`) or from source through tsx. @default 'dist' */
  from?: 'dist' | 'source';
}

/** One memory reading of a child process, bytes. */
export interface Mem {
  heap: number;
  rss: number;
  external: number;
  arrayBuffers: number;
  stats?: Record<string, number>;
}

interface Proc {
  url: string;
  /** Memory after forced GC; with PARLEY_BENCH_SNAPSHOTS=<dir>, also writes `<dir>/<label>-<phase>.heapsnapshot`. */
  mem(phase: string): Promise<Mem>;
  close(): Promise<void>;
}

/** Phase timings on stderr with PARLEY_BENCH_VERBOSE=1. */
const trace = (msg: string) =>
  process.env.PARLEY_BENCH_VERBOSE === '1' && process.stderr.write(`  [gateway ${(performance.now() / 1000).toFixed(1)} s] ${msg}\n`);

const withBound = <T>(p: Promise<T>, ms: number, what: () => string): Promise<T> => {
  let t: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (t = setTimeout(() => reject(new Error(what())), ms)))]).finally(() =>
    clearTimeout(t),
  );
};

/** Starts a child that sends {type:'ready', url} and answers ./fixtures/mem-ipc.mjs queries. */
export async function start(label: string, args: string[], readyMs = 60_000): Promise<Proc> {
  const child = spawn(process.execPath, args, { cwd: repoPath('.'), stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const waiting = new Map<number, (m: Mem) => void>();
  let seq = 0;
  let url: string | undefined;
  const died = () => new Error(`${label} process exited (code ${child.exitCode}); stderr: ${stderr.trim() || '(empty)'}`);
  const readyP = new Promise<string>((resolve, reject) => {
    child.on('message', (m: { type?: string; url?: string; id?: number } & Mem) => {
      if (m.type === 'ready') resolve((url = m.url!));
      else if (m.type === 'mem' || m.type === 'snapshot') waiting.get(m.id!)?.(m);
    });
    void exited.then(() => reject(died()));
  });
  const ask = (msg: Record<string, unknown>, ms: number) =>
    withBound(
      new Promise<Mem>((resolve, reject) => {
        const id = ++seq;
        waiting.set(id, (m) => (waiting.delete(id), resolve(m)));
        child.send({ ...msg, id });
        void exited.then(() => reject(died()));
      }),
      ms,
      () => `${label} process did not answer ${msg.type} within ${ms} ms`,
    );
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await withBound(exited, 5_000, () => `${label} process did not exit after SIGKILL`);
  };
  try {
    await withBound(readyP, readyMs, () => `${label} process not ready within ${readyMs} ms; stderr: ${stderr.trim() || '(empty)'}`);
  } catch (e) {
    await kill();
    throw e;
  }
  return {
    url: url!,
    mem: async (phase) => {
      const dir = process.env.PARLEY_BENCH_SNAPSHOTS;
      const path = dir && join(dir, `${label.replace(/\W+/g, '-')}-${phase}.heapsnapshot`);
      if (path) await ask({ type: 'snapshot', path }, 300_000);
      return ask({ type: 'mem' }, 30_000);
    },
    close: async () => {
      if (child.connected) child.send({ type: 'close' });
      await withBound(exited, 15_000, () => 'timeout').catch(kill);
    },
  };
}

interface Session {
  i: number;
  client: Client;
}

/** Opens sessions `from` … `from + n - 1`, `concurrency` at a time; each holds its prompt in `held`. */
async function connectAll(url: string, from: number, n: number, held: Array<() => void>, concurrency: number): Promise<Session[]> {
  const out: Session[] = [];
  let next = from;
  const worker = async () => {
    while (next < from + n) {
      const i = next++;
      const client = new Client({ name: `bench-session-${i}`, version: '0.0.1' }, { capabilities: { elicitation: { form: {} } } });
      client.setRequestHandler(
        'elicitation/create',
        () =>
          new Promise<ElicitResult>((resolve) =>
            held.push(() => resolve({ action: 'accept', content: { ...ANSWER, name: `session ${i}` } })),
          ),
      );
      try {
        await client.connect(new StreamableHTTPClientTransport(new URL(url)), { timeout: 30_000 });
      } catch (e) {
        throw new Error(`session ${i} could not connect to ${url}: ${why(e)}`);
      }
      out.push({ i, client });
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  return out;
}

/**
 * Every session calls `tool`; waits (bounded) until all prompts are held, runs `whilePending`, releases
 * every answer and checks that each call returned `held session <i>`.
 */
async function holdAndRelease(
  sessions: Session[],
  tool: string,
  held: Array<() => void>,
  concurrency: number,
  phaseMs: number,
  whilePending: () => Promise<void>,
): Promise<void> {
  const n = sessions.length;
  const early: string[] = [];
  let released = false;
  const calls: Array<Promise<CallToolResult>> = [];
  const deadline = Date.now() + phaseMs;
  // Calls go out in waves of `concurrency`; the next wave starts once this one's prompts have all
  // arrived (a thousand simultaneous connects overflow the listen backlog and time out).
  while (held.length < n) {
    if (early.length) throw new Error(`${early.length} of ${n} calls ended while prompts were pending; first: ${early[0]}`);
    if (Date.now() > deadline) throw new Error(`only ${held.length} of ${n} elicitations reached their clients within ${phaseMs} ms`);
    if (held.length === calls.length) {
      for (const s of sessions.slice(calls.length, calls.length + concurrency)) {
        const c = s.client.callTool({ name: tool, arguments: {} }, { timeout: 3 * phaseMs }).then(
          (r) => (released || early.push(`session ${s.i} returned before its answer: ${text(r)}`), r),
          (e: Error) => (released || early.push(`session ${s.i} failed: ${why(e)}`), Promise.reject(e)),
        );
        c.catch(() => undefined);
        calls.push(c);
      }
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  await whilePending();
  released = true;
  held.splice(0).forEach((f) => f());
  const results = await withBound(
    Promise.allSettled(calls),
    phaseMs,
    () => `not every call completed within ${phaseMs} ms after the answers were released`,
  );
  const wrong = results.flatMap((r, k) => {
    const want = `held session ${sessions[k].i}`;
    if (r.status === 'rejected') return [`session ${sessions[k].i}: ${why(r.reason)}`];
    return text(r.value) === want ? [] : [`session ${sessions[k].i}: expected "${want}", got "${text(r.value)}"`];
  });
  if (wrong.length) throw new Error(`${wrong.length} of ${n} calls did not return their own answer; first: ${wrong[0]}`);
}

/** An error's message with its cause (undici's "fetch failed" says why only there). */
const why = (e: unknown): string => {
  const err = e as { message?: string; cause?: { code?: string; message?: string } };
  return `${err?.message ?? String(e)}${err?.cause ? ` (${err.cause.code ?? err.cause.message})` : ''}`;
};

const text = (r: CallToolResult | { content?: unknown }) =>
  ((r.content ?? []) as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n');

export interface SideResult {
  base: Mem;
  idle: Mem;
  pending: Mem;
  after: Mem;
  connectMs: number;
}

/** One side: warm-up, then N sessions each holding a pending elicitation. */
export async function side(
  label: string,
  args: string[],
  tool: string,
  o: Required<GatewayBenchOptions>,
  checkPending: (m: Mem) => string | undefined,
): Promise<SideResult> {
  const proc = await start(label, args);
  const held: Array<() => void> = [];
  const open: Session[] = [];
  try {
    const warm = await connectAll(proc.url, 0, o.warmup, held, o.concurrency);
    open.push(...warm);
    await holdAndRelease(warm, tool, held, o.concurrency, o.phaseMs, async () => {});
    await Promise.all(
      warm.map((s) =>
        withBound(
          (s.client.transport as StreamableHTTPClientTransport).terminateSession().then(() => s.client.close()),
          10_000,
          () => 'warm-up session close timed out',
        ),
      ),
    );
    open.length = 0;
    const base = await proc.mem('base');
    trace(`${label}: warm-up done`);
    const t0 = performance.now();
    const sessions = await withBound(
      connectAll(proc.url, o.warmup, o.sessions, held, o.concurrency),
      o.phaseMs,
      () => `${label}: ${o.sessions} sessions not connected within ${o.phaseMs} ms`,
    );
    const connectMs = performance.now() - t0;
    open.push(...sessions);
    const idle = await proc.mem('idle');
    trace(`${label}: ${o.sessions} sessions connected`);
    let pending: Mem | undefined;
    for (let round = 1; round <= o.rounds; round++) {
      await holdAndRelease(sessions, tool, held, o.concurrency, o.phaseMs, async () => {
        if (round < o.rounds) return;
        pending = await proc.mem('pending');
        trace(`${label}: ${o.sessions} prompts pending (round ${round})`);
        const bad = checkPending(pending);
        if (bad) throw new Error(`${label}: ${bad}`);
      });
    }
    const after = await proc.mem('after');
    trace(`${label}: all answers released and checked`);
    return { base, idle, pending: pending!, after, connectMs };
  } finally {
    await Promise.allSettled(open.map((s) => withBound(s.client.close(), 5_000, () => 'client close timed out')));
    await proc.close();
  }
}

export async function run(opts: GatewayBenchOptions = {}): Promise<BenchRow[]> {
  const o: Required<GatewayBenchOptions> = {
    sessions: opts.sessions ?? envInt('PARLEY_BENCH_SESSIONS', 1000),
    warmup: opts.warmup ?? 10,
    concurrency: opts.concurrency ?? 50,
    phaseMs: opts.phaseMs ?? 120_000,
    rounds: opts.rounds ?? envInt('PARLEY_BENCH_ROUNDS', 1),
    from: opts.from ?? 'dist',
  };
  const n = o.sessions;
  if (o.from === 'dist' && !existsSync(repoPath('dist/src/gateway/index.js')))
    throw new Error(
      'bench gateway: dist/src/gateway/index.js is missing; run `npm run build` first (npm run bench does), or pass from: "source"',
    );
  const raw = await side('raw SDK server', ['--expose-gc', repoPath('bench/fixtures/hold-server.mjs'), 'http'], 'hold', o, (m) =>
    m.stats?.sessions === n ? undefined : `expected ${n} live sessions, the server has ${m.stats?.sessions}`,
  );
  const tsx = o.from === 'source' ? ['--import', 'tsx'] : [];
  const gw = await side(
    'parley gateway',
    ['--expose-gc', ...tsx, repoPath('bench/fixtures/gateway-proc.mjs'), o.from, String(n + o.warmup)],
    'bench__hold',
    o,
    (m) => (m.stats?.openCalls === n ? undefined : `expected ${n} open upstream calls, gateway.stats() says ${JSON.stringify(m.stats)}`),
  );

  const ratio = (a: number, b: number) => (b > 0 && a > 0 ? a / b : undefined);
  const KB = 1000;
  const MB = 1e6;
  const per = (s: SideResult, k: 'heap' | 'rss', from: Mem = s.base) => (s.pending[k] - from[k]) / n;
  const split = (s: SideResult) =>
    `idle session ${kb((s.idle.heap - s.base.heap) / n)} KB heap + ${o.rounds > 1 ? 'calls, the last one' : 'the call'} pending ${kb((s.pending.heap - s.idle.heap) / n)} KB heap; ` +
    `after release ${kb((s.after.heap - s.base.heap) / n)} KB heap / session still held (sessions stay open); connect ${(s.connectMs / n).toFixed(1)} ms / session`;
  const kb = (b: number) => (b / KB).toFixed(1);
  const growth1000 = (Math.max(per(gw, 'heap'), per(gw, 'rss')) * 1000) / MB;
  const how = `N=${n} sessions (SDK v2 clients, Streamable HTTP, 2025-11-25) each holding one pending 5-field form${o.rounds > 1 ? ` in its call ${o.rounds} (after ${o.rounds - 1} answered)` : ''}; child process measured alone, heap after forced GC; gateway from ${o.from}; one run`;
  return [
    {
      group: 'gateway',
      name: 'raw SDK v2 server, sessionful HTTP: heap per session holding a pending elicitation (baseline)',
      value: per(raw, 'heap') / KB,
      unit: 'KB heap / session',
      ratio: 1,
      ratioTo: 'raw SDK',
      note: `${how}; ${split(raw)}`,
    },
    {
      group: 'gateway',
      name: 'parley gateway → one stdio server: heap per session holding a pending elicitation',
      value: per(gw, 'heap') / KB,
      unit: 'KB heap / session',
      ratio: ratio(per(gw, 'heap'), per(raw, 'heap')),
      ratioTo: 'raw SDK',
      note: `gateway adds ${kb(per(gw, 'heap') - per(raw, 'heap'))} KB / session; ${split(gw)}`,
    },
    {
      group: 'gateway',
      name: 'raw SDK v2 server: RSS growth per session (baseline)',
      value: per(raw, 'rss') / KB,
      unit: 'KB RSS / session',
      ratio: 1,
      ratioTo: 'raw SDK',
      note: `process RSS ${(raw.base.rss / MB).toFixed(1)} MB before, ${(raw.pending.rss / MB).toFixed(1)} MB with ${n} pending`,
    },
    {
      group: 'gateway',
      name: 'parley gateway: RSS growth per session',
      value: per(gw, 'rss') / KB,
      unit: 'KB RSS / session',
      ratio: ratio(per(gw, 'rss'), per(raw, 'rss')),
      ratioTo: 'raw SDK',
      note: `process RSS ${(gw.base.rss / MB).toFixed(1)} MB before${o.from === 'source' ? ' (tsx loader included)' : ''}, ${(gw.pending.rss / MB).toFixed(1)} MB with ${n} pending`,
    },
    {
      group: 'gateway',
      name: 'parley gateway: memory for 1,000 sessions each holding a pending elicitation',
      value: growth1000,
      unit: 'MB',
      target: '≤ 150 MB',
      met: growth1000 <= 150,
      note: `the larger of heap and RSS growth per session × 1,000, measured with N=${n}${n === 1000 ? '' : ' (extrapolated; RSS growth of a few hundred sessions is mostly noise)'}; heap ${kb(per(gw, 'heap'))} KB, RSS ${kb(per(gw, 'rss'))} KB per session`,
    },
  ];
}

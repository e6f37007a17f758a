// Shared pieces of the bench groups that compare parley with the raw SDK: fixture paths, a raw SDK v2
// client that auto-accepts every elicitation with a fixed answer, an auto-accept presenter for the
// broker, the timed `elicit_loop` call, and small statistics. Everything runs over stdio child
// processes that exit when their stdin closes; nothing listens on a network port.
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { StdioServerDef } from '../dist/src/host/config/types.js';
import type { Presenter, PresenterAnswer, PresenterNotice, PromptView } from '../dist/src/host/presenter.js';
import { ANSWER } from './fixtures/form.mjs';
import { quartiles } from './lib.js';

export { FORM, ANSWER } from './fixtures/form.mjs';

/** Absolute path of a file relative to the repository root. */
export const repoPath = (rel: string): string => fileURLToPath(new URL(`../${rel}`, import.meta.url));

/** Raw SDK v2 fixture server (plain JS: starts without tsx). */
export const RAW_SERVER = repoPath('bench/fixtures/raw-server.mjs');
/** Toolkit fixture server (plain JS on dist/, like the raw server). */
export const TOOLKIT_SERVER = repoPath('bench/fixtures/toolkit-server.mjs');

/** A command line for a stdio server. */
export interface Cmd {
  command: string;
  args: string[];
}
export const rawServerCmd = (): Cmd => ({ command: process.execPath, args: [RAW_SERVER] });
export const toolkitServerCmd = (): Cmd => ({ command: process.execPath, args: [TOOLKIT_SERVER] });

/** A stdio `ServerDef` for parley's ServerManager / createHost. */
export function stdioDef(name: string, cmd: Cmd): StdioServerDef {
  return {
    name,
    type: 'stdio',
    command: cmd.command,
    args: cmd.args,
    cwd: repoPath('.'),
    env: {},
    origin: { file: '<bench>', pointer: `/servers/${name}` },
  };
}

/** A connected raw SDK v2 client and how many elicitations it answered. */
export interface RawPeer {
  client: Client;
  answered(): number;
  close(): Promise<void>;
}

/**
 * Starts `cmd` and connects a raw SDK v2 `Client` (default negotiation: `initialize`, legacy era) that
 * declares form elicitation and accepts every `elicitation/create` with {@link ANSWER}.
 * Resolves with the peer and the connect time in ms (spawn + initialize + initialized).
 */
export async function connectRaw(cmd: Cmd, timeoutMs = 30_000): Promise<{ peer: RawPeer; ms: number }> {
  const client = new Client({ name: 'bench-raw-client', version: '0.0.1' }, { capabilities: { elicitation: { form: {} } } });
  let answered = 0;
  client.setRequestHandler('elicitation/create', async () => {
    answered++;
    return { action: 'accept', content: { ...ANSWER } };
  });
  const transport = new StdioClientTransport({ command: cmd.command, args: cmd.args, cwd: repoPath('.'), stderr: 'ignore' });
  const t0 = performance.now();
  await client.connect(transport, { timeout: timeoutMs });
  const ms = performance.now() - t0;
  return { peer: { client, answered: () => answered, close: () => client.close() }, ms };
}

/** A presenter that accepts every form with {@link ANSWER} at once (the broker still validates it). */
export class AutoAcceptPresenter implements Presenter {
  readonly interactive = false;
  presented = 0;
  notices: PresenterNotice[] = [];
  present(_prompt: PromptView): Promise<PresenterAnswer> {
    this.presented++;
    return Promise.resolve({ action: 'accept', content: { ...ANSWER } });
  }
  notify(notice: PresenterNotice): void {
    this.notices.push(notice);
  }
}

/** Calls `elicit_loop {n}` and checks that every one of the n elicitations came back accepted. */
export type LoopCall = (n: number) => Promise<CallToolResult>;

/** One loop's cost, ms: client wall time of the tool call, this (host) process's CPU, the server's CPU. */
export interface LoopTime {
  wallMs: number;
  hostCpuMs: number;
  serverCpuMs: number;
}

/** One timed `elicit_loop {n}`; throws unless all n elicitations came back accepted with the fixed answer. */
export async function timedLoop(call: LoopCall, n: number): Promise<LoopTime> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await call(n);
  const wallMs = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const sc = r.structuredContent as { accepted?: number; cpuMs?: number } | undefined;
  if (r.isError || sc?.accepted !== n)
    throw new Error(`elicit_loop ${n}: expected ${n} accepted elicitations, got ${JSON.stringify(r.structuredContent ?? r.content)}`);
  return { wallMs, hostCpuMs: (c.user + c.system) / 1000, serverCpuMs: sc.cpuMs ?? NaN };
}

export const medianOf = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/**
 * Runs each side's loop `repeats` times, interleaved so load drift on a shared machine hits all sides
 * alike, after one warm-up loop each. The order rotates by one side per round (A B C, B C A, C A B, …)
 * so no side always runs first, or always right after the same other side. Returns each side's median
 * wall, host-CPU and server-CPU time (each median taken on its own) and every round's times.
 */
export async function interleaved(
  sides: LoopCall[],
  n: number,
  warmup: number,
  repeats: number,
): Promise<LoopTime[] & { rounds: LoopTime[][] }> {
  for (const s of sides) await timedLoop(s, warmup);
  const times: LoopTime[][] = sides.map(() => []);
  for (let r = 0; r < repeats; r++)
    for (let j = 0; j < sides.length; j++) {
      const i = (r + j) % sides.length;
      times[i].push(await timedLoop(sides[i], n));
    }
  const out = times.map((ts) => ({
    wallMs: medianOf(ts.map((t) => t.wallMs)),
    hostCpuMs: medianOf(ts.map((t) => t.hostCpuMs)),
    serverCpuMs: medianOf(ts.map((t) => t.serverCpuMs)),
  }));
  return Object.assign(out, { rounds: times });
}

/**
 * The median over rounds of side `a` ÷ side `b` for one measure, each round's pair taken back to back.
 * On a shared machine whose speed drifts between rounds, this is steadier than a ratio of two medians
 * (a slow spell then hits both sides of a round rather than one side's median).
 */
export function roundRatio(rounds: LoopTime[][], a: number, b: number, key: 'wallMs' | 'hostCpuMs' | 'serverCpuMs'): number {
  return medianOf(rounds[a].map((t, i) => t[key] / rounds[b][i][key]));
}

/** The lower and upper quartile of the per-round ratios {@link roundRatio} takes the median of, as text. */
export function roundSpread(rounds: LoopTime[][], a: number, b: number, key: 'wallMs' | 'hostCpuMs' | 'serverCpuMs'): string {
  const s = rounds[a].map((t, i) => t[key] / rounds[b][i][key]).sort((x, y) => x - y);
  const q = (f: number) => s[Math.min(s.length - 1, Math.floor(f * s.length))].toFixed(2);
  return `per-round ratios ${q(0.25)}–${q(0.75)}× (quartiles of ${s.length})`;
}

/** The quartiles of the per-round ratios {@link roundRatio} takes the median of (a `BenchRow.spread`). */
export function roundQuartiles(rounds: LoopTime[][], a: number, b: number, key: 'wallMs' | 'hostCpuMs' | 'serverCpuMs') {
  const { q1, q3, n } = quartiles(rounds[a].map((t, i) => t[key] / rounds[b][i][key]));
  return { q1, q3, n };
}

/** Positive integer from an environment variable, or the default. */
export function envInt(name: string, dflt: number): number {
  const v = Number(process.env[name]);
  return Number.isInteger(v) && v > 0 ? v : dflt;
}

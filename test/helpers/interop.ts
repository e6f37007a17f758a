// Both halves of an interop pair, each with the person's (or client's) next answer settable per case:
// - `hostHarness`: parley's host (`createHost`: ServerManager + ElicitationBroker + root registry) with
//   a ScriptedPresenter, one server named "peer";
// - `toolkitClient`: an SDK client (v1 1.32.2, v2 default, v2 `versionNegotiation: 'auto'`) connected to
//   the toolkit demo server (test/fixtures/toolkit/peers.ts) over stdio (a tsx child) or HTTP.
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createHost, ScriptedPresenter } from '../../src/host/index.js';
import type { HostConfig, PresenterAnswer, InputRequestView, ServerDef } from '../../src/host/index.js';
import { DEFAULT_POLICY } from '../../src/host/config/policy.js';
import { TOOLKIT_STDIO } from './peers.js';

export type Action = 'accept' | 'decline' | 'cancel';
/** What the person / client answers next. `form` is merged over the prefill on accept. */
export interface NextAnswer {
  action: Action;
  form: Record<string, unknown>;
}

export const textOf = (r: unknown) =>
  (((r as { content?: unknown }).content ?? []) as Array<{ type: string; text?: string }>)
    .filter((c) => c.type === 'text')
    .map((c) => c.text ?? '')
    .join('\n');

/** A tools/call bound: a case that hangs fails instead of stalling the matrix (calls take < 1 s unloaded). */
export const CALL_TIMEOUT_MS = 45_000;

export interface HostHarness {
  next: NextAnswer;
  prompts: InputRequestView[];
  call(tool: string, args?: Record<string, unknown>): Promise<string>;
  /** Negotiated revision, once the server runs. */
  revision(): string | undefined;
  host: ReturnType<typeof createHost>;
  close(): Promise<void>;
}

/** parley's host with one server "peer"; roots from `roots` (app scope). Nothing starts until a call. */
export function hostHarness(def: Omit<ServerDef, 'name' | 'origin'>, roots: Array<{ uri: string; name?: string }> = []): HostHarness {
  const next: NextAnswer = { action: 'accept', form: {} };
  const prompts: InputRequestView[] = [];
  const answer = (p: InputRequestView): PresenterAnswer => {
    prompts.push(p);
    if (p.mode === 'url' || next.action !== 'accept') return { action: next.action };
    const known = Object.keys(p.schema?.properties ?? {});
    const form = Object.fromEntries(Object.entries(next.form).filter(([k]) => known.includes(k)));
    return { action: 'accept', content: { ...p.prefill, ...form } };
  };
  // One scripted step per prompt; 50 is far more than a pair's cases ask, and running out rejects
  // (UserInteractionRequiredError) instead of hanging.
  const presenter = new ScriptedPresenter(Array.from({ length: 50 }, () => answer));
  const config: HostConfig = {
    servers: { peer: { name: 'peer', origin: { file: '<interop>', pointer: '/servers/peer' }, ...def } as ServerDef },
    routes: [],
    policy: { ...DEFAULT_POLICY },
    presets: {},
    profile: {},
    roots,
    inputs: {},
    sources: [],
  };
  const host = createHost(config, { presenter, clientInfo: { name: 'parley-interop', version: '0.0.0' } });
  return {
    next,
    prompts,
    host,
    call: async (tool, args = {}) => {
      const ac = new AbortController();
      const t = setTimeout(() => ac.abort(new Error(`${tool}: no result within ${CALL_TIMEOUT_MS} ms`)), CALL_TIMEOUT_MS);
      try {
        return textOf(await host.callTool('peer', tool, args, { signal: ac.signal }));
      } finally {
        clearTimeout(t);
      }
    },
    revision: () => host.listServers()[0]?.revision,
    close: () => host.close(),
  };
}

export type ClientKind = 'v1' | 'v2' | 'v2-auto';

export interface ToolkitClient {
  next: NextAnswer;
  /** Every elicitation/create params the client received. */
  seen: Array<Record<string, unknown>>;
  call(tool: string): Promise<string>;
  revision(): string | undefined;
  close(): Promise<void>;
}

/** The roots every toolkit client reports. */
export const CLIENT_ROOTS = [{ uri: 'file:///tmp/parley-interop', name: 'interop' }];

/** Records `result.protocolVersion` of the initialize response (the v1 client has no getter for it). */
function watchInitialize(t: { start(): Promise<void>; onmessage?: (m: any, extra?: any) => void }, seen: { version?: string }) {
  const start = t.start.bind(t);
  t.start = async () => {
    const inner = t.onmessage;
    t.onmessage = (m, extra) => {
      if (m?.result?.protocolVersion && !seen.version) seen.version = m.result.protocolVersion;
      inner?.(m, extra);
    };
    return start();
  };
}

/** An SDK client of `kind` connected to the toolkit demo server at `url` (HTTP) or over stdio. */
export async function toolkitClient(kind: ClientKind, url: string | undefined): Promise<ToolkitClient> {
  const next: NextAnswer = { action: 'accept', form: {} };
  const seen: Array<Record<string, unknown>> = [];
  const elicit = (params: Record<string, unknown>) => {
    seen.push(params);
    if (params.mode === 'url' || next.action !== 'accept') return { action: next.action };
    return { action: 'accept' as const, content: next.form };
  };
  const capabilities = { elicitation: { form: {}, url: {} }, roots: { listChanged: true } };
  const stdio = { command: process.execPath, args: ['--import', 'tsx', TOOLKIT_STDIO], stderr: 'ignore' as const };
  const init: { version?: string } = {};
  if (kind === 'v1') {
    const c = new V1Client({ name: 'interop-v1', version: '0.0.0' }, { capabilities });
    c.setRequestHandler(ElicitRequestSchema, async (r) => elicit(r.params as Record<string, unknown>) as never);
    c.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: CLIENT_ROOTS }));
    const t = url ? new V1Http(new URL(url)) : new V1Stdio(stdio);
    watchInitialize(t as never, init);
    await c.connect(t);
    return {
      next,
      seen,
      call: async (tool) => textOf(await c.callTool({ name: tool, arguments: {} }, undefined, { timeout: CALL_TIMEOUT_MS })),
      revision: () => init.version,
      close: () => c.close(),
    };
  }
  const c = new Client(
    { name: `interop-${kind}`, version: '0.0.0' },
    { capabilities, ...(kind === 'v2-auto' ? { versionNegotiation: { mode: 'auto' as const } } : {}) },
  );
  c.setRequestHandler('elicitation/create', async (r) => elicit(r.params as Record<string, unknown>) as never);
  c.setRequestHandler('roots/list', async () => ({ roots: CLIENT_ROOTS }));
  await c.connect(url ? new StreamableHTTPClientTransport(new URL(url)) : new StdioClientTransport(stdio));
  return {
    next,
    seen,
    call: async (tool) => textOf(await c.callTool({ name: tool, arguments: {} }, { timeout: CALL_TIMEOUT_MS })),
    revision: () => c.getNegotiatedProtocolVersion(),
    close: () => c.close(),
  };
}

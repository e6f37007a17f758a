/**
 * The conformance client: parley's host runtime (`ServerManager`, src/host/servers) with its
 * `ElicitationBroker` (src/host/broker) behind a scripted presenter that accepts every form with the
 * broker's prefill — the schema defaults (SEP-1034) — and declines URL consent.
 *
 * The conformance runner spawns `<command> <serverUrl>` with `MCP_CONFORMANCE_SCENARIO` (and, for some
 * scenarios, `MCP_CONFORMANCE_CONTEXT` = JSON) in the environment. Exit 0 = the client did its part;
 * the runner's checks decide pass or fail.
 *
 * Run: node --import tsx scripts/conformance/client.ts http://localhost:PORT/mcp
 * @module
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { ServerManager } from '../../src/host/servers/index.js';
import { ElicitationBroker } from '../../src/host/broker/index.js';
import {
  ScriptedPresenter,
  type Presenter,
  type PresenterAnswer,
  type PresenterNotice,
  type InputRequestView,
} from '../../src/host/presenter.js';
import type { HttpServerDef } from '../../src/host/config/types.js';
import { CallbackServer, MemoryCredentialStore } from '../../src/host/auth/index.js';

/** The Client ID Metadata Document URL the suite's authorization servers expect (auth/basic-cimd). */
export const CONFORMANCE_CIMD_URL = 'https://conformance-test.local/client-metadata.json';

/**
 * A user agent without a UI: GETs `url` and follows redirects (at most `maxHops`, each bounded by
 * `timeoutMs`) the way a browser would after the person consented, ending at parley's loopback callback.
 * Resolves with the last response's status. Only for authorization servers that redirect at once
 * (the suite's, or an OpenID provider test double with an auto-consenting interaction).
 */
export async function followRedirects(
  url: string,
  opts: { maxHops?: number; timeoutMs?: number; cookies?: Map<string, string> } = {},
): Promise<number> {
  return (await walkRedirects(url, opts)).status;
}

/**
 * {@link followRedirects} that also says where it ended: `last` is the URL of the last response, or the
 * URL `stop` accepted, which is returned unfetched with `status` 0 (a test playing the browser hands the
 * redirect to a server of its choice).
 */
export async function walkRedirects(
  url: string,
  opts: { maxHops?: number; timeoutMs?: number; cookies?: Map<string, string>; stop?: (url: string) => boolean } = {},
): Promise<{ last: string; status: number }> {
  let next = url;
  const jar = opts.cookies ?? new Map<string, string>();
  for (let hop = 0; hop < (opts.maxHops ?? 10); hop++) {
    if (hop > 0 && opts.stop?.(next)) return { last: next, status: 0 };
    const headers: Record<string, string> = {};
    if (jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const get = () => fetch(next, { redirect: 'manual', headers, signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000) });
    // One retry of a GET that failed at the socket (a reset keep-alive connection on a loaded machine), as a browser would.
    const res = await get().catch((e: unknown) => (e instanceof TypeError ? get() : Promise.reject(e)));
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair!.indexOf('=');
      if (i > 0) jar.set(pair!.slice(0, i).trim(), pair!.slice(i + 1).trim());
    }
    await res.arrayBuffer().catch(() => undefined);
    const loc = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !loc) return { last: next, status: res.status };
    next = new URL(loc, next).href;
  }
  throw new Error(`more than ${opts.maxHops ?? 10} redirects from ${url}`);
}

/**
 * The conformance presenter: forms as {@link ScriptedPresenter}({}) answers them (prefill accepted, URL
 * consent declined); a sign-in is consented to and then "opened" with {@link followRedirects}.
 */
class ConformancePresenter implements Presenter {
  readonly interactive = false;
  readonly #inner = new ScriptedPresenter({});
  constructor(private readonly log: (m: string) => void) {}
  async present(prompt: InputRequestView, signal: AbortSignal): Promise<PresenterAnswer> {
    if (!prompt.signIn || !prompt.url) return this.#inner.present(prompt, signal);
    this.log(`sign-in: ${prompt.message}`);
    void followRedirects(prompt.url.full).catch((e: unknown) => this.log(`sign-in browser: ${(e as Error).message}`));
    return { action: 'accept' };
  }
  notify(n: PresenterNotice): void {
    this.#inner.notify(n);
  }
}

/** What one scenario run did, for the log (stderr) and tests. */
export interface ClientRun {
  scenario: string;
  calls: Array<{ tool: string; ok: boolean; text?: string; error?: string }>;
}

type ToolCall = { name: string; arguments?: Record<string, unknown> };

const SERVER = 'conformance';

function firstText(r: CallToolResult): string | undefined {
  const c = r.content?.find((x) => x.type === 'text');
  return c && c.type === 'text' ? c.text : undefined;
}

/** Arguments for a tool the scenario server lists, from the scenario context or a per-tool rule. */
function argsFor(
  name: string,
  schema: Record<string, unknown> | undefined,
  tools: Map<string, Record<string, unknown>>,
): Record<string, unknown> {
  if (name === 'add_numbers') return { a: 5, b: 3 };
  // json-schema-2020-12-preservation: echo the focal tool's inputSchema back verbatim.
  const props = (schema?.properties ?? {}) as Record<string, unknown>;
  if ('schema' in props) {
    const focal = [...tools.entries()].find(([n]) => n !== name && n.includes('json_schema'));
    if (focal) return { schema: focal[1] };
  }
  return {};
}

/** Lists and reads the first resource and gets the first prompt when the server declares them (SEP-2243 header checks). */
async function exerciseResourcesAndPrompts(manager: ServerManager, log: (m: string) => void): Promise<void> {
  const caps = manager.info(SERVER)?.serverCapabilities;
  try {
    if (caps?.resources) {
      const first = (await manager.listResources(SERVER)).resources[0];
      if (first) await manager.readResource(SERVER, first.uri);
    }
    if (caps?.prompts) {
      const first = (await manager.listPrompts(SERVER)).prompts[0];
      if (first) await manager.getPrompt(SERVER, first.name);
    }
  } catch (e) {
    log(`resources/prompts: ${(e as Error).message}`);
  }
}

/**
 * Runs one scenario against `url`: connect (initialize or the 2026-07-28 handshake, whichever the
 * runtime negotiates), list tools, call the tools the scenario expects, stop.
 */
export async function runScenario(
  scenario: string,
  url: string,
  context: Record<string, unknown> = {},
  log: (m: string) => void = () => {},
): Promise<ClientRun> {
  const presenter = new ConformancePresenter(log);
  const broker = new ElicitationBroker({ presenter, policy: { sensitiveFields: 'ask' } });
  // Pre-registered credentials come in the scenario context (auth/pre-registration); the CIMD URL is the
  // one the suite's authorization servers accept; otherwise parley registers dynamically.
  const oauth: HttpServerDef['oauth'] = { clientMetadataUrl: CONFORMANCE_CIMD_URL };
  if (typeof context.client_id === 'string') oauth.clientId = context.client_id;
  if (typeof context.client_secret === 'string') oauth.clientSecret = context.client_secret;
  const def: HttpServerDef = {
    name: SERVER,
    type: 'http',
    url,
    headers: {},
    oauth,
    origin: { file: '<conformance>', pointer: '' },
    timeouts: { startupMs: 40_000, toolCallMs: 20_000, maxTotalMs: 25_000 },
  };
  const callback = new CallbackServer();
  const manager = new ServerManager(
    { [SERVER]: def },
    {
      auth: {
        store: new MemoryCredentialStore(),
        callback,
        presenter,
        scope: { tenant: 'default', user: 'default' },
        signInTimeoutMs: 15_000,
        allowLoopbackUrls: true,
        log: (level, m) => log(`[auth ${level}] ${m}`),
      },
      handlers: { elicit: broker.elicit, elicitationComplete: broker.elicitationComplete, listRoots: async () => ({ roots: [] }) },
      clientInfo: { name: 'parley-conformance-client', version: '0.1.0' },
      restart: { maxAttempts: 0 },
      // Up to 14 clients start at once in the auth suite run; on a loaded 2-core machine server/discover
      // alone has taken more than the default 10 s.
      probeTimeoutMs: 30_000,
      log: (level, m) => log(`[${level}] ${m}`),
    },
  );
  const run: ClientRun = { scenario, calls: [] };
  try {
    await manager.ensureRunning(SERVER);
    const info = manager.info(SERVER);
    log(`connected: era=${info?.era} revision=${info?.negotiatedRevision}`);
    if (scenario === 'initialize') return run;
    const listed = (await manager.listTools(SERVER)).tools;
    const tools = new Map(listed.map((t) => [t.name, t.inputSchema as Record<string, unknown>]));
    const planned: ToolCall[] = Array.isArray(context.toolCalls)
      ? (context.toolCalls as ToolCall[])
      : [...tools.keys()].map((name) => ({ name, arguments: argsFor(name, tools.get(name), tools) }));
    for (const call of planned) {
      try {
        const r = await manager.callTool(SERVER, call.name, call.arguments ?? {});
        run.calls.push({ tool: call.name, ok: !r.isError, text: firstText(r) });
      } catch (e) {
        run.calls.push({ tool: call.name, ok: false, error: (e as Error).message });
      }
      log(`called ${call.name}: ${JSON.stringify(run.calls.at(-1))}`);
    }
    await exerciseResourcesAndPrompts(manager, log);
    return run;
  } finally {
    await manager.stopAll();
    await callback.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.argv.at(-1) ?? '';
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  let context: Record<string, unknown> = {};
  try {
    context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, unknown>;
  } catch {
    /* no context */
  }
  if (!/^https?:\/\//.test(url) || !scenario) {
    console.error('usage: MCP_CONFORMANCE_SCENARIO=<name> node --import tsx scripts/conformance/client.ts <serverUrl>');
    process.exit(2);
  }
  const log = (m: string) => console.error(`parley-conformance-client: ${m}`);
  runScenario(scenario, url, context, log).then(
    () => process.exit(0),
    (e: unknown) => {
      log(`failed: ${(e as Error).stack ?? String(e)}`);
      process.exit(1);
    },
  );
}

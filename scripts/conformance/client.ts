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
import { ScriptedPresenter } from '../../src/host/presenter.js';
import type { HttpServerDef } from '../../src/host/config/types.js';

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
function argsFor(name: string, schema: Record<string, unknown> | undefined, tools: Map<string, Record<string, unknown>>): Record<string, unknown> {
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
export async function runScenario(scenario: string, url: string, context: Record<string, unknown> = {}, log: (m: string) => void = () => {}): Promise<ClientRun> {
  const presenter = new ScriptedPresenter({});
  const broker = new ElicitationBroker({ presenter, policy: { sensitiveFields: 'ask' } });
  const def: HttpServerDef = { name: SERVER, type: 'http', url, headers: {}, origin: { file: '<conformance>', pointer: '' }, timeouts: { startupMs: 20_000, toolCallMs: 20_000, maxTotalMs: 25_000 } };
  const manager = new ServerManager({ [SERVER]: def }, {
    handlers: { elicit: broker.elicit, elicitationComplete: broker.elicitationComplete, listRoots: async () => ({ roots: [] }) },
    clientInfo: { name: 'parley-conformance-client', version: '0.1.0' },
    restart: { maxAttempts: 0 },
    log: (level, m) => log(`[${level}] ${m}`),
  });
  const run: ClientRun = { scenario, calls: [] };
  try {
    await manager.ensureRunning(SERVER);
    const info = manager.info(SERVER);
    log(`connected: era=${info?.era} revision=${info?.negotiatedRevision}`);
    if (scenario === 'initialize') return run;
    const listed = (await manager.listTools(SERVER)).tools;
    const tools = new Map(listed.map((t) => [t.name, t.inputSchema as Record<string, unknown>]));
    const planned: ToolCall[] = Array.isArray(context.toolCalls) ? (context.toolCalls as ToolCall[]) : [...tools.keys()].map((name) => ({ name, arguments: argsFor(name, tools.get(name), tools) }));
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
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.argv.at(-1) ?? '';
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  let context: Record<string, unknown> = {};
  try { context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, unknown>; } catch { /* no context */ }
  if (!/^https?:\/\//.test(url) || !scenario) {
    console.error('usage: MCP_CONFORMANCE_SCENARIO=<name> node --import tsx scripts/conformance/client.ts <serverUrl>');
    process.exit(2);
  }
  const log = (m: string) => console.error(`parley-conformance-client: ${m}`);
  runScenario(scenario, url, context, log).then(
    () => process.exit(0),
    (e: unknown) => { log(`failed: ${(e as Error).stack ?? String(e)}`); process.exit(1); },
  );
}

/**
 * `createParleyServer`: a registration API over SDK v2's `McpServer` whose tool handlers get a
 * `ParleyContext` (elicitation, URL mode, roots, configuration) that behaves the same on every era.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type * as z from 'zod/v4';
import {
  McpServer,
  ProtocolError,
  ResourceTemplate,
  UriTemplate,
  UrlElicitationRequiredError,
  inputRequired,
} from '@modelcontextprotocol/server';
import type { CallToolResult, McpServerOptions, ServerContext, RegisteredTool } from '@modelcontextprotocol/server';
import { makeContext, Suspend } from './context.js';
import type { CallState, ParleyContext, ParleyRoot } from './context.js';
import { readEra, userOf } from './era.js';
import { ElicitationRefusedError, InputUnavailableError, ParleyServerError } from './errors.js';
import { argsDigest, openState } from './seal.js';
import type { StatePayload, StateRefusal } from './seal.js';
import { DEFAULT_STATE_TTL_MS, defaultShared } from './shared.js';
import type { Shared } from './shared.js';
import type { ConfigDef } from './config.js';
import { configKey } from './config.js';
import { sendOwn } from './fanout.js';
import { checkTimerMs, checkWhole } from './bounds.js';
import { fillFromUri } from '../schema/template-fill.js';
import { createWrappedMcpServer } from './handler-wrap.js';
import type { Handler } from './handler-wrap.js';
import type { ParleyResourceOptions, ParleyResourceHandler } from './templates.js';

/**
 * What each refusal of a `requestState` means, and (for `mac`) the server author's fix: a state sealed
 * with another key is what a restart, a second process or a `createShared()` inside the factory produces.
 */
const STATE_REFUSALS: Record<StateRefusal, string> = {
  malformed: 'it is not a requestState this server sealed',
  mac: "its signature does not match this server's key: it was tampered with, or sealed with another key (the server restarted, another process of this endpoint answered, or the factory creates its Shared state per request; create it once, outside the factory, and give every process the same createShared({ requestStateKey }))",
  expired: "it is older than the server's requestStateTtlMs",
  user: 'it was sealed for another user',
  tool: 'it was sealed for another tool or resource',
  arguments: "it was sealed for other arguments (a retry carries the original call's arguments)",
};

/** Options of `createParleyServer`. All durations in milliseconds. */
export interface ParleyServerOptions {
  name: string;
  version: string;
  /** How long a pushed elicitation may wait for the person (legacy eras). @default 1_800_000 (30 min) */
  elicitationTimeoutMs?: number;
  /** How long a pushed `roots/list` may wait. @default 10_000 */
  rootsTimeoutMs?: number;
  /**
   * Lifetime of a sealed `requestState` (2026-07-28), ms; the SDK codec counts whole seconds, so a state
   * expires up to 1 s later. @default 1_800_000 (30 min)
   */
  requestStateTtlMs?: number;
  /**
   * While a pushed elicitation waits (legacy eras) and the tool call carries a `progressToken`, send
   * `notifications/progress` this often, in ms, so hosts that reset their timeout on progress keep
   * the call alive. 0 turns it off. @default 15_000
   */
  progressIntervalMs?: number;
  /**
   * How often one ask is asked again after an answer that fails a check before the call fails: on
   * 2026-07-28 any invalid answer; on every era an answer the wire schema accepts but the zod schema
   * refuses (`.refine()`, `z.email()`). @default 3
   */
  maxReasks?: number;
  /**
   * Sentence telling the user how to supply values when the client cannot elicit (vector Q4).
   * @default tools: "Supply these values as tool arguments or in the server configuration, or use a
   *   client that supports elicitation."; template resources: "Give them in the URI (<template>), …"
   */
  howToSupply?: string;
  /** State shared across the instances one factory creates. @default the process-wide `defaultShared()` */
  shared?: Shared;
  /** Extra options for the underlying `McpServer`. */
  mcpOptions?: McpServerOptions;
}

/** A tool's registration; `C` is the schema of the configuration its description depends on (`dependsOn`). */
export interface ParleyToolOptions<
  I extends z.ZodObject,
  O extends z.ZodObject | undefined = undefined,
  C extends z.ZodObject = z.ZodObject,
> {
  title?: string;
  description: string;
  inputSchema: I;
  outputSchema?: O;
  /**
   * The tool's description depends on a configuration: it is listed with `description` until the
   * configuration is complete on this connection, then with `describe(config)` and the tool list is
   * re-announced (`notifications/tools/list_changed`: 2025-era connections directly, 2026-07-28 clients of
   * the same user on their `subscriptions/listen` streams).
   */
  dependsOn?: { config: ConfigDef<C>; describe: (config: z.infer<C>) => string };
}

/** A parley tool handler. */
export type ParleyToolHandler<I extends z.ZodObject> = (args: z.infer<I>, ctx: ParleyContext) => CallToolResult | Promise<CallToolResult>;

/** What `createParleyServer` returns. */
export interface ParleyServer {
  /** The underlying SDK server (register prompts, resources, raw tools, …). */
  readonly mcp: McpServer;
  /** The shared state (config cache, URL flows, requestState key). */
  readonly shared: Shared;
  /** Resolved timing settings (ms), defaults applied. */
  readonly settings: {
    elicitationTimeoutMs: number;
    rootsTimeoutMs: number;
    requestStateTtlMs: number;
    maxReasks: number;
    progressIntervalMs: number;
  };
  /**
   * Marks this instance as serving over stdio, where the process is the session: configuration and
   * URL flows are cached per process on both eras. `serve({stdio: true})` calls it.
   */
  useProcessSession(id: string): void;
  /** Registers a tool whose handler gets a `ParleyContext`. */
  tool<I extends z.ZodObject, C extends z.ZodObject = z.ZodObject>(
    name: string,
    config: ParleyToolOptions<I, z.ZodObject | undefined, C>,
    handler: ParleyToolHandler<I>,
  ): RegisteredTool;
  /**
   * `resource(template, handler)` or `resource(template, config, handler)`: a resource template whose
   * handler gets a `ParleyContext` (`ctx.elicit` on every era) and the variables a read leaves out in
   * `ctx.missing` (`./templates.ts`). With four arguments: `McpServer.registerResource` passthrough.
   */
  resource: McpServer['registerResource'] & {
    (template: string, handler: ParleyResourceHandler): void;
    (template: string, config: ParleyResourceOptions, handler: ParleyResourceHandler): void;
  };
  /** `McpServer.registerResource` with a `ResourceTemplate`. */
  resourceTemplate: McpServer['registerResource'];
  /** Marks a URL-mode flow complete from outside a tool call (e.g. the OAuth callback); `user` must match. */
  completeUrlElicitation(elicitationId: string, user?: string): Promise<void>;
}

const DEFAULT_HOW = 'Supply these values as tool arguments or in the server configuration, or use a client that supports elicitation.';

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** What the tools/call wrapper and the tool run share about one call. */
interface CallEntry {
  rawArgs: unknown;
  state?: StatePayload;
  /** Set on 2026-07-28 when the tool needed a capability the request did not declare. */
  missingCapability?: { message: string; requiredCapabilities: Record<string, unknown> };
}

/**
 * Creates a parley server. Call it inside the factory given to `serve` (one instance per connection or
 * request); pass the same `shared` to every instance.
 * @throws RangeError when a duration or `maxReasks` is not a whole number in its range: timeouts 1 ms to
 *   2,147,483,647 ms (the longest Node timer, about 24.8 days), `progressIntervalMs` 0 (off) to the same,
 *   `requestStateTtlMs` at least 1000, `maxReasks` 0 to 100.
 */
export function createParleyServer(opts: ParleyServerOptions): ParleyServer {
  const o = 'createParleyServer';
  if (opts.elicitationTimeoutMs !== undefined) checkTimerMs(`${o}: elicitationTimeoutMs`, opts.elicitationTimeoutMs);
  if (opts.rootsTimeoutMs !== undefined) checkTimerMs(`${o}: rootsTimeoutMs`, opts.rootsTimeoutMs);
  if (opts.progressIntervalMs !== undefined) checkTimerMs(`${o}: progressIntervalMs`, opts.progressIntervalMs, 0);
  if (opts.requestStateTtlMs !== undefined) checkWhole(`${o}: requestStateTtlMs`, opts.requestStateTtlMs, 1000, Number.MAX_SAFE_INTEGER);
  if (opts.maxReasks !== undefined) checkWhole(`${o}: maxReasks`, opts.maxReasks, 0, 100, '');
  const shared = opts.shared ?? defaultShared();
  // 2026-07-28: tool lists may depend on the user's configuration, so they must not be cached (SEP-2549).
  const cacheHints = { 'tools/list': { ttlMs: 0, cacheScope: 'private' as const }, ...opts.mcpOptions?.cacheHints };
  const { mcp, assertWrapped } = createWrappedMcpServer(
    { name: opts.name, version: opts.version },
    { ...opts.mcpOptions, cacheHints, capabilities: { tools: { listChanged: true }, ...opts.mcpOptions?.capabilities } },
    { 'tools/list': wrapList, 'tools/call': wrapCall, 'resources/read': wrapRead },
  );
  const connectionId = randomUUID();
  const rootsCache: { value?: ParleyRoot[] } = {};
  const idZero: { burnt?: Promise<void> } = {};
  const calls = new WeakMap<AbortSignal, CallEntry>();
  const dependents: Array<{ name: string; dep: { config: ConfigDef; describe: (config: Record<string, unknown>) => string } }> = [];
  const settings = {
    elicitationTimeoutMs: opts.elicitationTimeoutMs ?? 1_800_000,
    rootsTimeoutMs: opts.rootsTimeoutMs ?? 10_000,
    requestStateTtlMs: opts.requestStateTtlMs ?? DEFAULT_STATE_TTL_MS,
    maxReasks: opts.maxReasks ?? 3,
    progressIntervalMs: opts.progressIntervalMs ?? 15_000,
  };
  const states = shared.requestStates(settings.requestStateTtlMs);
  /** Whether a parley tool is registered: from then on every tools/call gets the requestState check. */
  let hasTools = false;
  // What "the session" is, per transport and era:
  // - legacy HTTP: the transport's MCP session id;
  // - stdio (both eras): the process, since one process serves one client (set by `serve({stdio})`);
  // - modern HTTP: there are no sessions (SEP-2567); the authenticated user is the only stable
  //   principal, so session-scoped state lives per user; without a user each call stands alone.
  let processSession: string | undefined;
  const sessionOf = (sdk: ServerContext, modern: boolean) => {
    if (sdk.sessionId) return sdk.sessionId;
    if (processSession) return processSession;
    if (!modern) return connectionId;
    const user = userOf(sdk);
    return user ? `user:${user}` : `call:${randomUUID()}`;
  };

  /** Lists configuration-dependent tools with `describe(config)` once this user/session completed it. */
  function wrapList(inner: Handler): Handler {
    return async (req, sdk) => {
      const res = (await inner(req, sdk)) as { tools: Array<{ name: string; description?: string }> };
      if (dependents.length === 0) return res;
      const era = readEra(mcp, sdk);
      const user = userOf(sdk),
        session = sessionOf(sdk, era.modern);
      if (!era.modern) watchConfig(user, session);
      for (const d of dependents) {
        const parsed = d.dep.config.schema.safeParse({
          ...d.dep.config.defaults,
          ...(shared.config.get(configKey(d.dep.config, user, session)) ?? {}),
        });
        const listed = res.tools.find((t) => t.name === d.name);
        if (parsed.success && listed) listed.description = d.dep.describe(parsed.data as Record<string, unknown>);
      }
      return res;
    };
  }

  /**
   * 2025 eras: this connection listed tools whose description depends on a configuration; when that
   * configuration is completed on any connection it applies to (user scope: all of that user's), tell
   * this connection its list changed.
   */
  let watching: ((key: string) => void) | undefined;
  function watchConfig(user: string, session: string): void {
    if (watching) return;
    watching = (key) => {
      // sendOwn, not mcp.sendToolListChanged: this change is this connection's, not the factory's.
      if (dependents.some((d) => configKey(d.dep.config, user, session) === key)) sendOwn(mcp, 'tools');
    };
    shared.configChanged.add(watching);
    const prev = mcp.server.onclose;
    mcp.server.onclose = () => {
      prev?.();
      if (watching) shared.configChanged.delete(watching);
    };
  }

  mcp.server.setNotificationHandler('notifications/roots/list_changed', () => {
    rootsCache.value = undefined;
  });

  /**
   * Verifies `requestState` before the SDK's tool dispatch so failures are JSON-RPC -32602 errors, and
   * raises -32021 after it (an error thrown inside a tool callback becomes an `isError` result).
   */
  function wrapCall(inner: Handler): Handler {
    return async (req, sdk) => {
      if (!hasTools) return inner(req, sdk);
      const params = (req as { params: { name: string; arguments?: unknown } }).params;
      const entry: CallEntry = { rawArgs: params.arguments ?? {} };
      const opened = await checkState(params.name, entry.rawArgs, sdk);
      if (opened) entry.state = opened;
      calls.set(sdk.mcpReq.signal, entry);
      const result = await inner(req, sdk);
      if (entry.missingCapability)
        throw new ProtocolError(-32021, `Missing required client capability: ${entry.missingCapability.message}`, {
          requiredCapabilities: entry.missingCapability.requiredCapabilities,
        });
      return result;
    };
  }

  /** The per-request state a `ParleyContext` runs on: recorded answers of `entry.state` plus this round's responses. */
  function stateFor(entry: CallEntry, sdk: ServerContext): CallState {
    const era = readEra(mcp, sdk);
    const prior = entry.state;
    const answers: Record<string, unknown> = { ...(prior?.a ?? {}) };
    const fresh = new Set<string>();
    for (const k of prior?.p ?? []) {
      const r = sdk.mcpReq.inputResponses?.[k];
      if (r !== undefined) {
        answers[k] = r;
        fresh.add(k);
      }
    }
    const st: CallState = {
      mcp,
      sdk,
      era,
      user: userOf(sdk),
      session: sessionOf(sdk, era.modern),
      shared,
      answers,
      fresh,
      reasks: { ...(prior?.n ?? {}) },
      ids: { ...(prior?.ids ?? {}) },
      pins: { ...(prior?.c ?? {}) },
      seq: 0,
      elicitationTimeoutMs: settings.elicitationTimeoutMs,
      rootsTimeoutMs: settings.rootsTimeoutMs,
      maxReasks: settings.maxReasks,
      progressIntervalMs: settings.progressIntervalMs,
      howToSupply: opts.howToSupply ?? DEFAULT_HOW,
      rootsCache,
      idZero,
      onConfig: (def) => {
        // Tell every connection the configuration applies to that its tool list changed (the next
        // tools/list, never cached on 2026-07-28: ttlMs 0, shows the new description):
        // - this connection: 2025 eras, and a 2026-07-28 stdio connection (the pinned instance; the SDK
        //   moves it onto the connection's listen subscriptions), unless its watcher below does it;
        // - other 2025-era connections, through shared.configChanged (matched by config key);
        // - 2026-07-28 HTTP clients of this user, on their listen streams: their lists are computed per
        //   request from the user's configuration (user scope, or any scope completed on 2026-07-28,
        //   where the user is the session). Without a user a 2026-07-28 configuration lives one call.
        const key = configKey(def, st.user, st.session);
        if (dependents.some((d) => d.dep.config.name === def.name)) {
          if ((!era.modern || processSession) && !watching) sendOwn(mcp, 'tools');
          if (st.user && !processSession && (era.modern || def.scope === 'user'))
            shared.lists.announce('tools', { user: st.user, era: 'modern' });
        }
        for (const l of shared.configChanged) l(key);
      },
    };
    return st;
  }

  /** Checks a `requestState` of `name` against its raw arguments and the responses given; -32602 when it fails. */
  async function checkState(name: string, rawArgs: unknown, sdk: ServerContext): Promise<StatePayload | undefined> {
    const raw = sdk.mcpReq.requestState();
    if (typeof raw !== 'string') return undefined;
    const opened = await openState(states, raw, sdk, { tool: name, digest: argsDigest(rawArgs) });
    if (typeof opened === 'string')
      throw new ProtocolError(
        -32602,
        `Invalid requestState (${opened}): ${STATE_REFUSALS[opened]}; start the call again without requestState`,
        {
          reason: opened,
        },
      );
    for (const k of opened.p) {
      const r = sdk.mcpReq.inputResponses?.[k] as { action?: unknown } | undefined;
      // The method each key was asked with (states sealed before named keys: from the key's letter).
      const method = opened.m?.[k] ?? (k[0] === 'e' || k[0] === 'u' ? 'elicitation/create' : k[0] === 'r' ? 'roots/list' : undefined);
      if (r !== undefined && method === 'elicitation/create' && !['accept', 'decline', 'cancel'].includes(r?.action as string)) {
        throw new ProtocolError(
          -32602,
          `inputResponses.${k}: unknown elicitation action ${JSON.stringify(r?.action)}; allowed: accept, decline, cancel`,
        );
      }
      const sampled = r as { role?: unknown; content?: unknown } | null | undefined;
      if (
        r !== undefined &&
        method === 'sampling/createMessage' &&
        (!sampled || typeof sampled !== 'object' || typeof sampled.content !== 'object' || !sampled.content)
      ) {
        throw new ProtocolError(
          -32602,
          `inputResponses.${k}: expected a sampling/createMessage result {role, content, model} for the sampling request, got ${JSON.stringify(r).slice(0, 80)}`,
        );
      }
      // A roots/list answer must be a ListRootsResult; anything else is not "no roots".
      if (r !== undefined && method === 'roots/list' && !Array.isArray((r as { roots?: unknown } | null)?.roots)) {
        throw new ProtocolError(
          -32602,
          `inputResponses.${k}: expected a roots/list result {roots: [{uri, name?}]} for the roots request, got ${JSON.stringify(r).slice(0, 80)}; answer it with the client's roots (an empty list if none)`,
        );
      }
    }
    return opened;
  }

  /** Seals the state of a suspended request: the 2026-07-28 `input_required` result. */
  async function suspended(name: string, entry: CallEntry, st: CallState, e: Suspend) {
    const keys = Object.keys(e.requests);
    const payload: StatePayload = {
      t: name,
      d: argsDigest(entry.rawArgs),
      a: st.answers,
      p: keys,
      n: st.reasks,
      ids: st.ids,
      c: st.pins,
      m: Object.fromEntries(keys.map((k) => [k, e.requests[k].method])),
    };
    return inputRequired({ inputRequests: e.requests, requestState: await states.mint(payload, st.sdk) });
  }

  async function run(name: string, handler: ParleyToolHandler<z.ZodObject>, args: unknown, sdk: ServerContext): Promise<CallToolResult> {
    const entry = calls.get(sdk.mcpReq.signal) ?? { rawArgs: args };
    const st = stateFor(entry, sdk);
    try {
      const result = await handler(args as never, makeContext(st));
      // The handler caught the suspend signal (a try/catch around ctx calls) and returned: the round
      // still goes to the client, as the same code waits for the answer on 2025 eras.
      if (st.suspended) return (await suspended(name, entry, st, new Suspend(st.suspended))) as never;
      return result;
    } catch (e) {
      if (e instanceof Suspend) return (await suspended(name, entry, st, e)) as never;
      if (st.suspended) return (await suspended(name, entry, st, new Suspend(st.suspended))) as never;
      if (e instanceof UrlElicitationRequiredError) throw e;
      // 2026-07-28: a capability the request did not declare is a protocol error, -32021 with
      // data.requiredCapabilities (changelog "Capabilities"); raised by the tools/call wrapper because
      // the SDK turns errors thrown inside a tool into isError results.
      if (e instanceof InputUnavailableError && st.era.modern && e.requiredCapabilities)
        entry.missingCapability = { message: e.message, requiredCapabilities: e.requiredCapabilities };
      if (e instanceof InputUnavailableError || e instanceof ElicitationRefusedError) return errorResult(e.message);
      if (e instanceof ParleyServerError) return errorResult(`${name}: ${e.message}`);
      throw e;
    }
  }

  /** Parley template resources, matched before the SDK's own resources/read dispatch. */
  const templates: Array<{ template: string; t: UriTemplate; handler: ParleyResourceHandler }> = [];

  function addTemplate(template: string, config: ParleyResourceOptions, handler: ParleyResourceHandler): void {
    const t = new UriTemplate(template); // throws on a template the SDK cannot parse
    templates.push({ template, t, handler });
    const complete = config.complete
      ? Object.fromEntries(
          Object.entries(config.complete).map(([k, fn]) => [
            k,
            (value: string, ctx?: { arguments?: Record<string, string> }) => fn(value, ctx),
          ]),
        )
      : undefined;
    // Listed and completed by the SDK; reads are answered by the wrapper below (the SDK would call
    // this callback only for URIs that give every variable).
    mcp.registerResource(
      config.name ?? template,
      new ResourceTemplate(template, { list: undefined, ...(complete ? { complete } : {}) }),
      { title: config.title, description: config.description, mimeType: config.mimeType } as never,
      (() => {
        throw new ProtocolError(-32603, 'parley template resource read outside its wrapper');
      }) as never,
    );
    assertWrapped('resources/read');
  }

  /** Answers reads of parley template resources; every other URI goes to the SDK's own dispatch. */
  function wrapRead(inner: Handler): Handler {
    return async (req, sdk) => {
      const uri = (req as { params: { uri: string } }).params.uri;
      let hit: { entry: (typeof templates)[number]; known: Record<string, string>; missing: string[] } | undefined;
      for (const entry of templates) {
        const fill = fillFromUri(entry.t, uri);
        if (fill && (!hit || fill.missing.length < hit.missing.length)) hit = { entry, ...fill };
      }
      if (!hit) return inner(req, sdk);
      const name = `resource:${hit.entry.template}`;
      const call: CallEntry = { rawArgs: { uri } };
      const opened = await checkState(name, call.rawArgs, sdk);
      if (opened) call.state = opened;
      const st = stateFor(call, sdk);
      // A read has no tool arguments: the values can be given in the URI instead.
      if (opts.howToSupply === undefined)
        st.howToSupply = `Give them in the URI (${hit.entry.template}), or use a client that supports elicitation.`;
      const { t } = hit.entry;
      const ctx = Object.assign(makeContext(st), {
        uri,
        missing: hit.missing,
        expand: (v: Record<string, string | string[]>) => t.expand(v),
      });
      try {
        const result = await hit.entry.handler({ ...hit.known }, ctx);
        if (st.suspended) return suspended(name, call, st, new Suspend(st.suspended)); // caught by the handler (see run)
        return result as never;
      } catch (e) {
        if (e instanceof Suspend) return suspended(name, call, st, e);
        if (st.suspended) return suspended(name, call, st, new Suspend(st.suspended));
        // 2026-07-28: a capability the request did not declare is -32021 with data.requiredCapabilities,
        // as for tools/call (changelog "Capabilities"); 2025 eras keep -32602 naming the URI.
        if (e instanceof InputUnavailableError && st.era.modern && e.requiredCapabilities)
          throw new ProtocolError(-32021, `Missing required client capability: ${uri}: ${e.message}`, {
            requiredCapabilities: e.requiredCapabilities,
          });
        if (e instanceof InputUnavailableError || e instanceof ElicitationRefusedError || e instanceof ParleyServerError)
          throw new ProtocolError(-32602, `${uri}: ${e.message}`);
        throw e;
      }
    };
  }

  const server: ParleyServer = {
    mcp,
    shared,
    settings,
    useProcessSession(id) {
      processSession = id;
    },
    tool(name, config, handler) {
      const registered = mcp.registerTool(
        name,
        {
          title: config.title,
          description: config.description,
          inputSchema: config.inputSchema,
          outputSchema: config.outputSchema,
        } as never,
        ((args: unknown, sdk: ServerContext) => run(name, handler as never, args, sdk)) as never,
      );
      assertWrapped('tools/call');
      assertWrapped('tools/list');
      hasTools = true;
      if (config.dependsOn) dependents.push({ name, dep: config.dependsOn as unknown as (typeof dependents)[number]['dep'] });
      return registered;
    },
    resource: ((...a: unknown[]) => {
      if (typeof a[0] === 'string' && (typeof a[1] === 'function' || (a.length === 3 && typeof a[2] === 'function'))) {
        return addTemplate(
          a[0],
          (typeof a[1] === 'function' ? {} : a[1]) as ParleyResourceOptions,
          (typeof a[1] === 'function' ? a[1] : a[2]) as ParleyResourceHandler,
        );
      }
      return (mcp.registerResource as (...x: unknown[]) => unknown)(...a);
    }) as ParleyServer['resource'],
    resourceTemplate: mcp.registerResource.bind(mcp) as McpServer['registerResource'],
    async completeUrlElicitation(id, user = '') {
      const f = shared.urlFlows.get(id);
      if (!f || f.user !== user) throw new ParleyServerError('url-flow', `unknown URL elicitation "${id}" for this user`);
      f.complete = true;
      await f.notify?.();
    },
  };
  return server;
}

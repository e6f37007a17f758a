/**
 * `createGateway`: parley in front of any MCP client (`parley serve`). One host per user (its own
 * servers, broker, rate limits, remembered answers, presets and audit scope); upstream sessions of
 * that user share it. Each upstream session gets an SDK `McpServer` that offers the aggregated
 * catalog (`./catalog.ts`) and bridges elicitation (`./bridge.ts`, `./park.ts`) and roots
 * (`./roots.ts`). Served dual-era by `serve()` (src/server/serve.ts): stdio, or Streamable HTTP with
 * sessionful 2025-era sessions. docs/gateway.md describes the behaviour; spec sections are cited
 * where implemented.
 * @module
 */
import type { CredentialStore } from '../host/auth/index.js';
import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { McpServer, ProtocolError, ResourceNotFoundError, createRequestStateCodec, inputRequired } from '@modelcontextprotocol/server';
import { specTypeSchemas } from '@modelcontextprotocol/server';
import type { AuthInfo, CallToolResult, ElicitResult, ServerContext, Tool } from '@modelcontextprotocol/server';
import { createHost, HeadlessPresenter } from '../host/index.js';
import type { Host, HostConfig, HttpServerDef, Presenter, InputRequestView, Store } from '../host/index.js';
import { elicitModes, readEra, userOf } from '../server/era.js';
import { HttpDenial, serve } from '../server/serve.js';
import { argsDigest } from '../server/seal.js';
import type { HttpOptions, ServeHandle } from '../server/serve.js';
import { BridgePresenter, OpenCalls, toAnswer, upstreamParams } from './bridge.js';
import { ConsoleHolds } from './hold.js';
import type { ConsoleWatch, HoldOptions } from './hold.js';
import type { UpstreamCall, UpstreamElicitParams } from './bridge.js';

/** A 2025-era session's open calls: any of them can carry a prompt to the client. */
interface SessionCalls extends UpstreamCall {
  /**
   * The session's open calls, oldest first: each sends an elicitation related to itself, and
   * `notifications/elicitation/complete` related to itself.
   */
  active: Array<{
    send: (params: UpstreamElicitParams, signal: AbortSignal) => Promise<ElicitResult>;
    complete: (elicitationId: string) => void;
  }>;
  /** The console watches of the session's open calls (a prompt cannot be told apart between them). */
  watches: ConsoleWatch[];
}
import { Catalog } from './catalog.js';
import { ParkingLot } from './park.js';
import type { ParkOptions } from './park.js';
import { UpstreamRoots } from './roots.js';
import { identityOf, ResourceGuard } from './oauth.js';
import type { Identity } from './oauth.js';
import { DEFAULT_TENANT, gatewayIdentities, parseIdentity } from './users.js';
import { checkForwardProof, FORWARD_HEADER, forwardedIdentity, forwardRetry, isLoopbackUrl } from './forward.js';
import type { ForwardedIdentity } from './forward.js';
import { SessionRouter } from './sessions-route.js';
import { adminRoutes } from './admin.js';
import type { WatchOptions } from './sessions-watch.js';
import { SIGN_IN_TOOL, UPSTREAM_IDENTIFY_PATH, UpstreamSignIns } from './upstream-signin.js';
import { browserSignIn } from './browser-identity.js';
import { namespace } from './names.js';
import type { AskClient } from './upstream-signin.js';

/** The user of single-user mode (no `gateway.users` configured). */
export const DEFAULT_USER = 'default';

/** Default of parley.json `gateway.maxSessionsPerUser`: open 2025-era HTTP sessions per user. */
export const DEFAULT_MAX_SESSIONS_PER_USER = 50;
/** Default of parley.json `gateway.maxPendingPerUser`: elicitations waiting for one user's client. */
export const DEFAULT_MAX_PENDING_PER_USER = 20;
/** Default of parley.json `gateway.sessionIdleMs`: an idle 2025-era HTTP session closes after 30 min. */
export const DEFAULT_SESSION_IDLE_MS = 1_800_000;

export interface GatewayOptions {
  /** Audit log, remembered answers, presets, roots; rows are keyed by user. */
  store?: Store;
  /** OAuth sign-ins of protected servers, per user (docs/auth.md). Without it they last one process. */
  credentials?: CredentialStore;
  /** Presenter for prompts the upstream client cannot answer. @default a HeadlessPresenter (fails at once) */
  fallback?: (user: string) => Presenter;
  /** Parked 2026-07-28 calls: `ttlMs` (default 300 000) and `batchMs` (default 20). */
  park?: ParkOptions;
  /** Bound on one pushed upstream elicitation, ms. @default 1_800_000 (30 min) */
  upstreamAnswerMs?: number;
  /** Diagnostics (stderr for `parley serve`); never receives secrets. */
  log?: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
  /** Parent environment for stdio servers. @default process.env */
  env?: Record<string, string | undefined>;
  /**
   * Key that seals 2026-07-28 `requestState` (HMAC-SHA256 via the SDK's `createRequestStateCodec`, bound
   * to the caller's identity, expiring with the parked call's TTL), at least 32 bytes. Replicas of one
   * gateway share it (`PARLEY_SECRET`). @default 32 random bytes per process
   * @throws RangeError from `createGateway` when shorter than 32 bytes
   */
  secret?: string | Uint8Array;
  /** This process's name among replicas, sealed into every `requestState`. @default a random UUID */
  replicaId?: string;
  /** Identity the gateway shows upstream. @default {name:'parley-gateway', version:'0.1.0'} */
  serverInfo?: { name: string; version: string };
  /**
   * The console's address WITHOUT its token, named to clients that cannot elicit while a prompt of their
   * call waits there (`./hold.ts`). @default none (no progress, no "answer in the console" result)
   */
  consoleAddress?: () => string | undefined;
  /** Bounds of calls waiting for the console (`./hold.ts`). */
  hold?: HoldOptions;
  /**
   * Liveness probes of the replicas this one forwards to (`./sessions-watch.ts`; with `secret` only).
   * @default probe every 1000 ms, 3000 ms each, down after 3 misses or a refused connection
   */
  replicaWatch?: WatchOptions;
}

/** One user's part of the gateway. */
export interface UserSpace {
  /** The identity: `user` in tenant `default`, else `tenant/user` (src/gateway/users.ts). */
  user: string;
  /** The user's tenant; the host's store scope is (tenant, user). */
  tenant: string;
  /** The user's name inside the tenant (the `user` of the host's store scope and of stored sign-ins). */
  name: string;
  host: Host;
  catalog: Catalog;
  /** Open upstream tool calls, found by the tag their prompts carry. */
  calls: OpenCalls;
  /** The presenter of the user's host: relays prompts to the open calls, and URL-mode completions. */
  bridge: BridgePresenter;
  /** Live upstream sessions (2025 eras and stdio), for list_changed. */
  sessions: Set<McpServer>;
  /** Elicitations waiting for this user's client (pushed or parked); capped by `gateway.maxPendingPerUser`. */
  pending: { n: number };
  roots: UpstreamRoots;
  /**
   * Whether the user's fallback presenter can show a prompt (parley's console): only then can a call
   * wait for the console (`./hold.ts`); otherwise the bridge never hands a prompt to it.
   */
  consoleHold: boolean;
}

export interface Gateway {
  /**
   * The user's space, created on first use. `user` is an identity: a user of `gateway.users`, or
   * `"<tenant>/<user>"` for a user of `gateway.tenants.<tenant>.users` or an OAuth user with a tenant
   * claim. `who` (from the request's `AuthInfo`) names an OAuth user's tenant explicitly.
   */
  space(user: string, who?: Identity): UserSpace;
  /** Builds the upstream server for one session (2025 eras, stdio) or one request (2026-07-28 HTTP). */
  factory(ctx?: { authInfo?: { clientId?: string; extra?: Record<string, unknown> } }): McpServer;
  /**
   * Serves over stdio, or over HTTP with bearer tokens when `gateway.users` is configured and OAuth
   * access tokens when `gateway.oauth` is (then also the RFC 9728 metadata, `./oauth.ts`).
   */
  serve(how: { stdio: true; onClose?: () => void } | { http: Omit<HttpOptions, 'authenticate' | 'requireAuth'> }): Promise<ServeHandle>;
  /** Counts for diagnostics and benchmarks. */
  stats(): { users: number; sessions: number; openCalls: number; parked: number };
  /** Abandons parked calls, stops every user's servers. */
  close(): Promise<void>;
}

const errorResult = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

// A server's error text or a thrown error that only repeats what a failure already explains (e.g. no
// person can answer here, which the server got back from its elicitation) is said once, not twice.
function repeats(t: string, up: UpstreamCall): boolean {
  const core = t.replace(/^MCP error -?\d+: /, '').replace(/\.$/, '');
  return core.length > 0 && up.failures.some((f) => f.startsWith(core));
}

/**
 * A downstream result with the call's failures (prompts nobody could answer) said first. The text of an
 * `isError` result passes `clean` (a server's SDK turns a thrown error into one, and a driver's error
 * often quotes its connection string); other results are the tool's data and pass untouched.
 */
function finish(r: CallToolResult, up: UpstreamCall, clean: (text: string) => string): CallToolResult {
  if (r.isError && Array.isArray(r.content))
    r = { ...r, content: r.content.map((c) => (c.type === 'text' && typeof c.text === 'string' ? { ...c, text: clean(c.text) } : c)) };
  if (r.isError && r.structuredContent !== undefined) {
    const { structuredContent, ...rest } = r;
    const kept = cleanJson(structuredContent, clean);
    r =
      kept !== null && typeof kept === 'object' && !Array.isArray(kept)
        ? { ...rest, structuredContent: kept as Record<string, unknown> }
        : rest;
  }
  if (!up.failures.length) return r;
  return {
    ...r,
    isError: true,
    content: [
      { type: 'text' as const, text: `parley: ${up.failures.join(' ')}` },
      ...(r.content ?? []).filter((c) => !(c.type === 'text' && repeats(c.text, up))),
    ],
  };
}

/**
 * `value` (JSON data a server sent with an error: an `isError` result's `structuredContent`, a JSON-RPC
 * error's `data`) with `clean` applied to its JSON text (`secretValues` holds each value's JSON-escaped
 * form too); `undefined` when the cleaned text no longer parses (a value spanning JSON punctuation).
 */
function cleanJson(value: unknown, clean: (text: string) => string): unknown {
  try {
    return JSON.parse(clean(JSON.stringify(value)));
  } catch {
    return undefined;
  }
}

/**
 * The tool result of a downstream call that failed with `e`; its message passes `clean` first (the
 * host's `clientText`: configured secrets redacted, the server's stderr tail withheld unless
 * `gateway.showServerStderr`).
 */
function failedResult(
  e: unknown,
  up: UpstreamCall,
  target: { server: string; name: string },
  clean: (text: string) => string,
): CallToolResult {
  const message = clean((e as Error)?.message ?? String(e));
  const said = repeats(message, up);
  return errorResult(
    [...up.failures.map((f) => `parley: ${f}`), ...(said ? [] : [`${target.server}.${target.name} failed: ${message}`])].join('\n'),
  );
}

export function createGateway(config: HostConfig, opts: GatewayOptions = {}): Gateway {
  const spaces = new Map<string, UserSpace>();
  const lot = new ParkingLot(opts.park);
  const holds = new ConsoleHolds(opts.consoleAddress ?? (() => undefined), opts.hold);
  const users = gatewayIdentities(config.gateway);
  const oauth = config.gateway?.oauth;
  const hasUsers = Object.keys(users).length > 0 || !!oauth;
  // Bearer identities apply over HTTP only; stdio is one user by construction.
  let multiUser = false;
  const log = opts.log ?? (() => {});
  const answerMs = opts.upstreamAnswerMs ?? 1_800_000;
  // What of a server's error reaches a client (docs/gateway.md §"Errors a client sees"): the person
  // running parley keeps the whole message in the log; the client's copy is cleaned by the host.
  const showStderr = config.gateway?.showServerStderr === true;
  const clean = (host: Host, server: string) => (text: string) => host.clientText(server, text, { stderr: showStderr });
  /** Rethrows `e` (a prompt or resource error) with its message and `data` cleaned in place, code kept. */
  const cleaned = (host: Host, server: string, e: unknown): never => {
    if (e instanceof Error) {
      e.message = clean(host, server)(e.message);
      const err = e as Error & { data?: unknown };
      if (err.data !== undefined) Object.defineProperty(err, 'data', { value: cleanJson(err.data, clean(host, server)), writable: true });
    }
    throw e;
  };
  const maxPending = config.gateway?.maxPendingPerUser ?? DEFAULT_MAX_PENDING_PER_USER;
  const replicaId = opts.replicaId ?? randomUUID();
  // Sealed requestState (basic/patterns/mrtr: the client echoes it verbatim and it is attacker-controlled):
  // signed with the shared secret, bound to the caller's identity, and expiring with the park TTL.
  // Tampered, expired or another identity's state is refused -32602 by the SDK before the handler runs.
  const stateCodec = createRequestStateCodec({
    key: opts.secret ?? randomBytes(32),
    ttlSeconds: Math.ceil((opts.park?.ttlMs ?? 300_000) / 1000),
    bind: (ctx) => userOfCtx(ctx as ServerContext) || '-',
  });
  /** This replica's MCP URL once serving over HTTP; sealed into requestState for cross-replica resume. */
  let selfUrl = '';
  // With a shared secret, 2025-era session ids name their replica and reach it from any other (./sessions-route.ts).
  const router = opts.secret
    ? new SessionRouter({ secret: opts.secret, replicaId, selfUrl: () => selfUrl || undefined, watch: opts.replicaWatch, log })
    : undefined;
  /** Numbers the upstream sessions' call tags. */
  let sessionSeq = 0;
  /** What serve() returned, for list changes to 2026-07-28 listen streams. */
  const handles = new Set<ServeHandle>();
  // Sign-in to protected upstream servers through the client (URL-mode elicitation) when the gateway
  // knows its public address and shares one credential store with the users' hosts (./upstream-signin.ts).
  const publicUrl = config.gateway?.publicUrl;
  /** The redirect route exists only once serving over HTTP (over stdio nobody would receive it). */
  let signInsServed = false;
  const signIns =
    publicUrl && opts.credentials
      ? new UpstreamSignIns({
          publicUrl,
          credentials: opts.credentials,
          allowLoopbackUrls: config.policy.allowLoopbackUrls === true,
          log,
          ...(opts.secret ? { secret: opts.secret, selfUrl: () => selfUrl || undefined } : {}),
          users,
          ...(oauth?.browserClient
            ? { browser: browserSignIn(oauth, `${publicUrl.replace(/\/+$/, '')}${UPSTREAM_IDENTIFY_PATH}`, opts.env) }
            : {}),
          ...(config.gateway?.unverifiedSignIn ? { unverified: true } : {}),
        })
      : undefined;

  /** The configuration a tenant's hosts get: every server, or those its `servers` list names. */
  function tenantConfig(tenant: string): HostConfig {
    const only = config.gateway?.tenants?.[tenant]?.servers;
    if (!only) return config;
    const servers = Object.fromEntries(Object.entries(config.servers).filter(([n]) => only.includes(n)));
    return { ...config, servers, routes: config.routes.map((r) => ({ ...r, servers: r.servers.filter((n) => only.includes(n)) })) };
  }

  function space(user: string, who?: Identity): UserSpace {
    let s = spaces.get(user);
    if (s) return s;
    const calls = new OpenCalls();
    const fallback = opts.fallback?.(user) ?? new HeadlessPresenter();
    // Tenant scope: the store rows, broker limits and server processes of this host are the tenant's
    // user's own; a tenant's `servers` list narrows the configuration it gets.
    const { tenant, user: name } =
      who?.key === user && who.tenant !== 'default' ? { tenant: who.tenant, user: who.user } : parseIdentity(user);
    const pending = { n: 0 };
    const cap = { user, max: maxPending, setting: 'gateway.maxPendingPerUser in parley.json', pending };
    const bridge = new BridgePresenter({ calls, fallback, cap });
    const host = createHost(tenantConfig(tenant), {
      presenter: bridge,
      store: opts.store,
      credentials: opts.credentials,
      scope: { tenant, user: name },
      log,
      env: opts.env,
      clientInfo: { name: 'parley-gateway', version: '0.1.0' },
      // Tenant admins read the audit log (/admin/audit): it quotes stderr only where clients may see it.
      auditStderr: config.gateway?.showServerStderr === true,
    });
    const catalog = new Catalog(host, log);
    s = {
      user,
      tenant,
      name,
      host,
      catalog,
      calls,
      bridge,
      sessions: new Set(),
      pending,
      roots: new UpstreamRoots(host, { log }),
      consoleHold: fallback.interactive,
    };
    const sp = s;
    // Downstream list changes reach every live 2025-era session of this user and the user's 2026-07-28
    // subscriptions/listen streams.
    // A server that (re)starts may change every list (it was left out while down).
    host.on((e) => {
      if (e.type === 'server') {
        if (e.state.status === 'running') for (const kind of ['tools', 'prompts', 'resources'] as const) catalog.invalidate(kind);
        return;
      }
      if (e.type !== 'list-changed') return;
      catalog.invalidate(e.kind);
      for (const m of sp.sessions) {
        if (!m.isConnected()) continue;
        const send =
          e.kind === 'tools' ? m.sendToolListChanged() : e.kind === 'prompts' ? m.sendPromptListChanged() : m.sendResourceListChanged();
        void Promise.resolve(send).catch(() => undefined);
      }
      // 2026-07-28 clients: on their subscriptions/listen streams that asked for this kind (this user's only).
      for (const h of handles) h.listChanged(e.kind, multiUser ? { user, era: 'modern' } : { era: 'modern' });
    });
    spaces.set(user, s);
    return s;
  }

  const userOfCtx = (sdk: ServerContext) => (multiUser ? userOf(sdk) : DEFAULT_USER);

  // What every upstream server shares (defined once, not per session: a session costs less heap).
  /** The requestState verifier: the handler sees the verified payload plus the sealed text (`raw`), which a forwarded retry carries on. */
  const verifyState = async (state: string, c: unknown) => ({ ...((await stateCodec.verify(state, c as never)) as object), raw: state });
  const spaceOf = (sdk: ServerContext) => {
    const user = userOfCtx(sdk);
    if (!user) throw new ProtocolError(-32001, 'no user: this gateway needs a bearer token');
    return space(user, multiUser ? identityOf(sdk.http?.authInfo) : undefined);
  };
  /** The request handlers that need no session state. */
  const shared: Array<[string, (req: never, sdk: ServerContext) => Promise<unknown>]> = [
    ['prompts/list', async (_req, sdk) => ({ prompts: (await spaceOf(sdk).catalog.listPrompts()).list })],
    [
      'prompts/get',
      async (req: { params: { name: string; arguments?: Record<string, string> } }, sdk) => {
        const sp = spaceOf(sdk);
        const t = await sp.catalog.prompt(req.params.name);
        if (!t) throw new ProtocolError(-32602, `Unknown prompt "${req.params.name}"; prompts/list names them as <server>__<prompt>`);
        // Through the host facade, so it is audited like tool calls.
        return sp.host
          .getPrompt(t.server, t.name, req.params.arguments, { signal: sdk.mcpReq.signal })
          .catch((e: unknown) => cleaned(sp.host, t.server, e));
      },
    ],
    ['resources/list', async (_req, sdk) => ({ resources: (await spaceOf(sdk).catalog.listResources()).list })],
    ['resources/templates/list', async (_req, sdk) => ({ resourceTemplates: await spaceOf(sdk).catalog.listTemplates() })],
    [
      'resources/read',
      async (req: { params: { uri: string } }, sdk) => {
        const sp = spaceOf(sdk);
        const t = await sp.catalog.resource(req.params.uri);
        // Resource not found: -32602 with data {uri} on every revision, as the SDK sends it (2026-07-28
        // requires -32602; earlier revisions named -32002, which SDK v1 never emitted either).
        if (!t)
          throw new ResourceNotFoundError(
            req.params.uri,
            `Resource not found: no configured server offers, routes or has a template for ${req.params.uri}`,
          );
        // Through the host facade: a template URI with variables left out asks for them (essay §3.2; a
        // 2025-era client gets the prompt in the console, as prompts not tied to a tool call), and the
        // read is audited like tool calls.
        return sp.host.readResource(t.server, t.name, { signal: sdk.mcpReq.signal }).catch((e: unknown) => cleaned(sp.host, t.server, e));
      },
    ],
  ];

  function factory(ctx: { authInfo?: { clientId?: string; extra?: Record<string, unknown> } } = {}): McpServer {
    const mcp = new McpServer(opts.serverInfo ?? { name: 'parley-gateway', version: '0.1.0' }, {
      capabilities: { tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true } },
      requestState: {
        verify: verifyState,
      },
    } as never);
    // The session's call tag (./bridge.ts), unique in this process: short, so it costs no heap per session.
    const sessionId = `s${++sessionSeq}`;
    const owner = multiUser ? ((ctx.authInfo?.extra?.sub as string | undefined) ?? ctx.authInfo?.clientId ?? '') : DEFAULT_USER;
    const ownerWho = multiUser ? identityOf(ctx.authInfo as never) : undefined;
    const srv = mcp.server;
    let sessionRoots: (sdk: ServerContext) => Promise<void> = () => Promise.resolve();

    srv.setRequestHandler('tools/list', async (_req, sdk) => {
      const sp = spaceOf(sdk);
      await sessionRoots(sdk);
      const tools = (await sp.catalog.listTools()).list;
      // A client that can open a URL (URL-mode elicitation) is offered a sign-in tool for each server the
      // user must sign in to (./upstream-signin.ts): its tools cannot be listed before.
      const waiting = elicitModes(readEra(mcp, sdk)).url ? signInTools(sp) : [];
      return { tools: waiting.length ? [...tools, ...waiting.map((w) => w.tool)] : tools } as never;
    });
    srv.setRequestHandler('tools/call', (async (
      req: { params: { name: string; arguments?: Record<string, unknown> } },
      sdk: ServerContext,
    ) => {
      const sp = spaceOf(sdk);
      await sessionRoots(sdk);
      return callTool(mcp, sp, sessionId, req.params.name, req.params.arguments ?? {}, sdk);
    }) as never);
    for (const [method, handler] of shared) srv.setRequestHandler(method as never, handler as never);

    // 2025-era sessions: remember the session for list_changed, and bridge the client's roots. The
    // first roots/list is sent related to the session's first request (on HTTP a request outside one
    // may find no stream to travel on), and again on notifications/roots/list_changed. Bound: 10 s.
    let rootsRead: Promise<void> | undefined;
    const readRoots = (
      send: (r: { method: 'roots/list' }, o: { timeout: number }) => Promise<{ roots: Array<{ uri: string; name?: string }> }>,
    ) => {
      const sp = owner ? space(owner, ownerWho) : undefined;
      // 2026-07-28 has no pushed roots/list (roots are deprecated there); only 2025-era sessions.
      if (!sp || srv.getNegotiatedProtocolVersion?.() === '2026-07-28' || !srv.getClientCapabilities()?.roots) return Promise.resolve();
      return Promise.resolve()
        .then(() => send({ method: 'roots/list' }, { timeout: 10_000 }))
        .then(
          (r) => sp.roots.set(sessionId, Array.isArray(r?.roots) ? r.roots : []),
          (e) => log('warn', `roots/list to the upstream client failed: ${(e as Error).message}`),
        );
    };
    sessionRoots = (sdk) =>
      readEra(mcp, sdk).modern ? Promise.resolve() : (rootsRead ??= readRoots((r, o) => sdk.mcpReq.send(r, o) as never));
    srv.oninitialized = () => {
      if (!owner) return;
      space(owner, ownerWho).sessions.add(mcp);
      srv.setNotificationHandler('notifications/roots/list_changed', () => void readRoots((r, o) => srv.listRoots(undefined, o)));
    };
    const prevClose = srv.onclose;
    srv.onclose = () => {
      prevClose?.();
      if (!owner) return;
      const sp = spaces.get(owner);
      sp?.sessions.delete(mcp);
      sp?.roots.drop(sessionId);
      sp?.bridge.forgetCompletions(sessionId);
    };
    return mcp;
  }

  /** Servers `sp` must sign in to that the gateway can sign in through the client, with their sign-in tool. */
  function signInTools(sp: UserSpace): Array<{ server: string; def: HttpServerDef; tool: Tool }> {
    if (!signIns || !signInsServed || !signIns.offers({ tenant: sp.tenant, user: sp.name })) return [];
    const out: Array<{ server: string; def: HttpServerDef; tool: Tool }> = [];
    for (const s of sp.host.listServers()) {
      const def = tenantConfig(sp.tenant).servers[s.name];
      if (s.state.status !== 'error' || !s.state.signInRequired || def?.type !== 'http') continue;
      const [{ exposed }] = namespace([{ server: s.name, name: SIGN_IN_TOOL }]);
      out.push({
        server: s.name,
        def,
        tool: {
          name: exposed,
          title: `Sign in to ${s.name}`,
          description: `[${s.name}] Sign in to ${s.name} at its authorization server, so that its tools can be used: your client shows the sign-in page to open. Its tools are listed afterwards.`,
          inputSchema: { type: 'object', properties: {} },
        },
      });
    }
    return out;
  }

  /**
   * The audit row of one call's sign-in through the client (kind `sign-in`, action `ok` | `declined` |
   * `failed`, `detail: {via: 'client', code?}`: the error's code only, never a token or URL).
   */
  async function auditSignIn(sp: UserSpace, sessionId: string, server: string, action: string, started: number, code?: unknown) {
    await opts.store
      ?.appendAudit({
        ts: Date.now(),
        scope: { tenant: sp.tenant, user: sp.name, session: sessionId || null },
        server,
        kind: 'sign-in',
        action,
        durationMs: Date.now() - started,
        detail: { via: 'client', ...(typeof code === 'string' ? { code } : {}) },
      })
      .catch((e: unknown) => log('error', `audit write failed: ${String(e)}`));
  }

  /** Tells the user's clients that their tool list changed (2025-era sessions, 2026-07-28 listen streams). */
  function toolsChanged(sp: UserSpace): void {
    sp.catalog.invalidate('tools');
    for (const m of sp.sessions) if (m.isConnected()) void Promise.resolve(m.sendToolListChanged()).catch(() => undefined);
    for (const h of handles) h.listChanged('tools', multiUser ? { user: sp.user, era: 'modern' } : { era: 'modern' });
  }

  async function callTool(
    mcp: McpServer,
    sp: UserSpace,
    sessionId: string,
    exposed: string,
    args: Record<string, unknown>,
    sdk: ServerContext,
  ): Promise<CallToolResult> {
    const era = readEra(mcp, sdk);
    const modes = elicitModes(era);
    let target = await sp.catalog.tool(exposed);
    /** A server the user must sign in to first, through this call's client (./upstream-signin.ts). */
    let signInTo: { name: string; def: HttpServerDef } | undefined;
    /** The sign-in tool of a server (see {@link signInTools}): after the sign-in it answers, not the server. */
    const signInTool = target ? undefined : signInTools(sp).find((w) => w.tool.name === exposed);
    if (signInTool && modes.url) signInTo = { name: signInTool.server, def: signInTool.def };
    else if (!target) {
      // A tool of a server that could not start (e.g. sign-in required): say why, not only "unknown".
      const down = sp.host.listServers().find((s) => exposed.startsWith(`${s.name}__`) && s.state.status === 'error');
      const def = down ? tenantConfig(sp.tenant).servers[down.name] : undefined;
      // URL mode exists from 2025-11-25 on, and only for clients that declared it.
      if (
        signIns &&
        signInsServed &&
        down?.state.status === 'error' &&
        down.state.signInRequired &&
        def?.type === 'http' &&
        modes.url &&
        signIns.offers({ tenant: sp.tenant, user: sp.name })
      )
        signInTo = { name: down.name, def };
      else {
        const why =
          down?.state.status === 'error' ? `: server "${down.name}" is unavailable: ${clean(sp.host, down.name)(down.state.message)}` : '';
        throw new ProtocolError(-32602, `Unknown tool "${exposed}"${why}; tools/list names them as <server>__<tool>`);
      }
    }
    const failed = (e: unknown, up: UpstreamCall) =>
      failedResult(e, up, target ?? { server: signInTo!.name, name: exposed }, clean(sp.host, target?.server ?? signInTo!.name));
    /**
     * The downstream call. After a sign-in through the client: the tool is looked up again in the
     * server's fresh list (the user's host starts the server with the stored tokens).
     */
    const invoke = async (tag: string, signal: AbortSignal, up: UpstreamCall, complete?: (elicitationId: string) => void) => {
      if (!target && signInTo) {
        const { name, def } = signInTo;
        let pendingCompletion: string | undefined;
        const ask: AskClient = async (view, s) => {
          const params = upstreamParams({ ...view, server: name }, up.revision);
          const answer = toAnswer(await up.ask(params, s));
          if (answer.action === 'accept' && complete && 'elicitationId' in params && params.elicitationId)
            pendingCompletion = params.elicitationId;
          return answer;
        };
        const started = Date.now();
        try {
          await signIns!.signIn({ tenant: sp.tenant, user: sp.name, server: name }, def, ask);
          await auditSignIn(sp, sessionId, name, 'ok', started);
        } catch (e) {
          const code = (e as { code?: unknown }).code;
          await auditSignIn(sp, sessionId, name, code === 'SIGN_IN_DECLINED' ? 'declined' : 'failed', started, code);
          throw e;
        }
        // 2025-11-25: the browser step is done (client/elicitation §URL mode, notifications/elicitation/complete).
        if (pendingCompletion) complete?.(pendingCompletion);
        if (signInTool) {
          // The server starts with the stored tokens; its tools replace the sign-in tool in the lists.
          await sp.host.ensureRunning(name);
          toolsChanged(sp);
          const done: Awaited<ReturnType<Host['callTool']>> = {
            content: [{ type: 'text', text: `Signed in to ${name}. Its tools are listed now (tools/list).` }],
          };
          return done;
        }
        target = await sp.catalog.tool(exposed);
        if (!target) {
          const st = sp.host.listServers().find((s) => s.name === name)?.state;
          throw new Error(
            st?.status === 'error'
              ? `signed in, but server "${name}" is unavailable: ${clean(sp.host, name)(st.message)}`
              : `signed in to "${name}", which has no tool "${exposed}"; tools/list names them as <server>__<tool>`,
          );
        }
      }
      return sp.host.callTool(target!.server, target!.name, args, { tag, signal });
    };

    if (!era.modern) {
      // 2025 eras: prompts are pushed upstream, related to this tools/call (client/elicitation).
      // The tag is the upstream session, not the call: a 2025-era server's pushed request carries no
      // link to its call, so parallel calls of one session could not be told apart, but any of them
      // can carry the prompt to the same client (docs/gateway.md §Elicitation).
      let entry = sp.calls.get(sessionId) as SessionCalls | undefined;
      if (!entry) {
        const e: SessionCalls = {
          tag: sessionId,
          modes,
          revision: era.revision,
          failures: [],
          active: [],
          watches: [],
          ask: (params, signal) => {
            const carrier = e.active.at(-1);
            if (!carrier) return Promise.reject(new Error('the upstream call ended'));
            return carrier.send(params, signal);
          },
          // Related to a call still open (over HTTP it travels on that call's stream); once the session's
          // calls have ended, as a session notification (the client's GET stream, or stdio).
          complete: (elicitationId) => {
            const related = e.active.at(-1);
            if (related) return related.complete(elicitationId);
            const n = { method: 'notifications/elicitation/complete', params: { elicitationId } };
            void Promise.resolve()
              .then(() => mcp.server.notification(n as never))
              .catch(() => undefined); // the session may have closed since
          },
          console: {
            opened: (p) => e.watches.forEach((w) => w.opened(p)),
            closed: (p) => e.watches.forEach((w) => w.closed(p)),
          },
        };
        sp.calls.open((entry = e));
      }
      entry.modes = modes;
      // Sent related to this tools/call so it travels on the call's own response stream over HTTP
      // (SDK 2.4's elicitInput does not relate it: a client without a GET stream would never see it).
      // The result schema is passed: without one the SDK probes its own with a failing parse whose
      // error text it formats, ~20 µs per elicitation (~70 µs in the loaded gateway).
      const carrier = {
        send: (params: UpstreamElicitParams, signal: AbortSignal) =>
          sdk.mcpReq.send(
            { method: 'elicitation/create', params: params as unknown as Record<string, unknown> },
            specTypeSchemas.ElicitResult,
            { signal, timeout: answerMs },
          ) as Promise<ElicitResult>,
        complete: (elicitationId: string) =>
          void Promise.resolve(
            sdk.mcpReq.notify({ method: 'notifications/elicitation/complete', params: { elicitationId } } as never),
          ).catch(() => undefined),
      };
      const { complete } = carrier;
      entry.active.push(carrier);
      const up = entry;
      // A call held for the console (./hold.ts) goes on downstream after this request returns: it gets
      // its own signal, which the upstream cancel reaches only while this request waits for it. Its watch
      // stays with the session until the downstream call ends, so a pickup sees which prompt is still open.
      // Without a console (the user's fallback cannot show a prompt, so the bridge never opens a watch) no
      // call is ever held: the downstream call runs on the upstream request's own signal.
      const held = sp.consoleHold
        ? holds.start(
            { user: sp.user, tool: exposed, args },
            (signal) => invoke(up.tag, signal, up, complete),
            {
              progressToken: sdk.mcpReq._meta?.progressToken as string | number | undefined,
              notify: (n) => sdk.mcpReq.notify(n as never),
              tool: exposed,
            },
            sdk.mcpReq.signal,
          )
        : undefined;
      if (held?.started) {
        up.watches.push(held.watch);
        const done = () => {
          const i = up.watches.indexOf(held.watch);
          if (i >= 0) up.watches.splice(i, 1);
        };
        held.run.then(done, done);
      }
      try {
        const outcome = held ? held.outcome : invoke(up.tag, sdk.mcpReq.signal, up, complete);
        return finish(await outcome, up, clean(sp.host, target?.server ?? signInTo!.name));
      } catch (e) {
        if (sdk.mcpReq.signal.aborted) throw e;
        return failed(e, up);
      } finally {
        held?.release();
        up.active.splice(up.active.indexOf(carrier), 1);
        if (up.active.length === 0) sp.calls.close(up);
      }
    }

    // 2026-07-28: park the downstream call and answer input_required (basic/patterns/mrtr).
    // Verified by the SDK through stateCodec: {p: parked call id, r: replica that parks it, a: its URL,
    // t: its tool, d: argsDigest of its arguments, n: the round it was minted for}.
    const state = sdk.mcpReq.requestState() as
      | { p?: unknown; r?: unknown; a?: unknown; t?: unknown; d?: unknown; n?: unknown; raw?: unknown }
      | undefined;
    if (state === undefined && !modes.form && !modes.url && holds.active()) {
      // A client that declared no elicitation: nothing can be parked for it, every prompt goes to the
      // console; the call waits for it as a 2025-era one does (./hold.ts: progress, then "call again").
      // One tag per user, as a 2025-era session's: a 2025-era server's prompt cannot be told apart
      // between concurrent calls, so it is shown to the watch of each.
      const tag = `console-hold:${sp.user}`;
      let entry = sp.calls.get(tag) as (UpstreamCall & { watches: Set<ConsoleWatch> }) | undefined;
      if (!entry) {
        const watches = new Set<ConsoleWatch>();
        const e = {
          tag,
          modes,
          revision: era.revision,
          failures: [],
          watches,
          ask: () => Promise.reject(new Error('the client declared no elicitation')),
          console: {
            opened: (p: InputRequestView) => watches.forEach((w) => w.opened(p)),
            closed: (p: InputRequestView) => watches.forEach((w) => w.closed(p)),
          },
        };
        sp.calls.open((entry = e));
      }
      const calls = entry;
      const held = holds.start(
        { user: sp.user, tool: exposed, args },
        (signal) => invoke(tag, signal, calls),
        {
          progressToken: sdk.mcpReq._meta?.progressToken as string | number | undefined,
          notify: (n) => sdk.mcpReq.notify(n as never),
          tool: exposed,
        },
        sdk.mcpReq.signal,
      );
      if (held.started) {
        calls.watches.add(held.watch);
        const done = () => {
          calls.watches.delete(held.watch);
          if (calls.watches.size === 0) sp.calls.close(calls);
        };
        held.run.then(done, done);
      }
      try {
        return finish(await held.outcome, { ...calls, failures: [] }, clean(sp.host, target?.server ?? signInTo!.name));
      } catch (e) {
        if (sdk.mcpReq.signal.aborted) throw e;
        return failed(e, { ...calls, failures: [] });
      } finally {
        held.release();
      }
    }
    let parked;
    if (state !== undefined) {
      if (typeof state !== 'object' || state === null || typeof state.p !== 'string')
        throw new ProtocolError(-32602, 'Invalid requestState: not one this gateway minted; call the tool again without requestState');
      // Bound to the tool name and arguments of the call it was minted for (basic/patterns/mrtr §Security
      // Considerations): a retry that changes them would otherwise be answered for the original call.
      if (state.t !== exposed)
        throw new ProtocolError(
          -32602,
          `Invalid requestState: it was minted for tool "${String(state.t).slice(0, 200)}", not "${exposed}"; call the tool again without requestState`,
        );
      if (state.d !== argsDigest(args))
        throw new ProtocolError(
          -32602,
          `Invalid requestState: it is bound to the tool name and arguments of the call it was minted for, and this retry of "${exposed}" changes them (MRTR: a retry carries the original request's parameters); retry with the arguments of the original call, or call the tool again without requestState to start a new call`,
        );
      if (state.r !== replicaId) {
        // Parked on another replica: only replicas holding the shared secret can mint this state, so the
        // owner's URL in it is trusted, and still must be loopback http.
        const owner = typeof state.a === 'string' ? state.a : '';
        // The owner's URL is ours when the replica that parked the call restarted on the same port: its
        // parked calls died with it (forwarding to ourselves would loop).
        if (owner && owner === selfUrl)
          throw new ProtocolError(
            -32602,
            `Invalid requestState: its call was parked on replica ${String(state.r)}, which has since restarted at this address as ${replicaId}; parked calls do not survive a restart; call the tool again without requestState`,
          );
        if (!opts.secret || !isLoopbackUrl(owner))
          throw new ProtocolError(
            -32602,
            `Invalid requestState: its call is parked on replica ${String(state.r)}, not this one (${replicaId}), which cannot reach it; call the tool again without requestState`,
          );
        // The owner dies or hangs: the retry fails within the watch's bound (./sessions-watch.ts).
        const down = new AbortController();
        const unwatch = router?.watch.watch(owner, (why) => down.abort(new Error(`it ${why}`)));
        try {
          return await forwardRetry({
            url: owner,
            identity: forwardedIdentity(sdk.http?.authInfo, sp.user),
            secret: opts.secret,
            name: exposed,
            args,
            inputResponses: sdk.mcpReq.inputResponses,
            requestState: String(state.raw),
            modes,
            signal: AbortSignal.any([sdk.mcpReq.signal, down.signal]),
            timeoutMs: (opts.park?.ttlMs ?? 300_000) + 10_000,
          });
        } catch (e) {
          if (down.signal.aborted)
            return errorResult(
              `parley: replica ${String(state.r)} (${owner}), where this call is parked, cannot be reached: ${(down.signal.reason as Error).message}. The call is lost; call the tool again without requestState.`,
            );
          if (e instanceof ProtocolError || (typeof (e as { code?: unknown }).code === 'number' && (e as { code: number }).code < 0))
            throw e;
          return errorResult(
            `parley: replica ${String(state.r)} (${owner}), where this call is parked, cannot be reached: ${(e as Error).message}. The call is lost; call the tool again without requestState.`,
          );
        } finally {
          unwatch?.();
        }
      }
      parked = lot.get(state.p, sp.user);
      if (!parked)
        throw new ProtocolError(
          -32602,
          'Invalid requestState: unknown, expired, or minted for another user; call the tool again without requestState',
        );
      // Bound to the call it was minted for (basic/patterns/mrtr: state names the originating request).
      if (parked.tool !== exposed)
        throw new ProtocolError(
          -32602,
          `Invalid requestState: it was minted for tool "${parked.tool}", not "${exposed}"; call the tool again without requestState`,
        );
      // One round, one answer: a replayed or late retry of an earlier round would otherwise answer the
      // current round's prompts (its keys missing, so `cancel`) behind the person's back.
      if (state.n !== parked.round)
        throw new ProtocolError(
          -32602,
          `Invalid requestState: it belongs to round ${String(state.n).slice(0, 20)} of this call, which was already answered (the call is at round ${parked.round}); retry with the requestState of the latest input_required result`,
        );
      if (parked.busy)
        throw new ProtocolError(
          -32602,
          'Invalid requestState: a retry of this round is already in progress; each requestState is answered once',
        );
      const up = sp.calls.get(parked.id);
      if (up) up.modes = modes;
      parked.answer(sdk.mcpReq.inputResponses);
    } else {
      const p = (parked = lot.open(sp.user, () => sp.calls.close(call)));
      p.tool = exposed;
      const call: UpstreamCall = { tag: p.id, modes, revision: era.revision, failures: [], ask: (params, signal) => p.ask(params, signal) };
      sp.calls.open(call);
      p.run((signal) => invoke(call.tag, signal, call));
    }
    const up = sp.calls.get(parked.id)!;
    const out = await parked.next(sdk.mcpReq.signal);
    if (out.kind === 'input')
      return inputRequired({
        inputRequests: out.inputRequests as never,
        requestState: await stateCodec.mint(
          { p: parked.id, r: replicaId, t: exposed, d: argsDigest(args), n: parked.round, ...(selfUrl ? { a: selfUrl } : {}) },
          sdk as never,
        ),
      }) as never;
    lot.close(parked);
    sp.calls.close(up);
    if (out.kind === 'result') return finish(out.result, up, clean(sp.host, target?.server ?? signInTo!.name));
    if (sdk.mcpReq.signal.aborted) {
      parked.expire('the client cancelled the call');
      throw out.error;
    }
    return failed(out.error, up);
  }

  /**
   * The `AuthInfo` of a caller another replica vouches for (`./forward.ts`): a static user as such, an
   * OAuth user only when `gateway.oauth` is configured and the key is the one this replica would derive
   * from the user and tenant claims (`./oauth.ts`). `undefined` otherwise (the request then needs its own
   * credentials, which forwarded requests do not carry).
   */
  function forwardedAuth(f: ForwardedIdentity): AuthInfo | undefined {
    if (f.key in users) return { token: 'bearer', clientId: f.key, scopes: [], extra: { sub: f.key } };
    if (!oauth) return undefined;
    const key = oauth.tenantClaim ? `${encodeURIComponent(f.tenant)}/${f.user}` : f.user;
    if (key !== f.key || (!oauth.tenantClaim && f.tenant !== DEFAULT_TENANT)) return undefined;
    return {
      token: 'forwarded',
      clientId: f.key,
      scopes: [...oauth.scopes],
      extra: { sub: f.key, user: f.user, tenant: f.tenant, issuer: oauth.issuer },
    };
  }

  return {
    space,
    factory,
    async serve(how) {
      const keep = (h: ServeHandle) => {
        handles.add(h);
        const close = h.close.bind(h);
        h.close = () => (handles.delete(h), close());
        return h;
      };
      if ('stdio' in how) return keep(await serve((c) => factory(c as never), { stdio: true, onClose: how.onClose }));
      multiUser = hasUsers;
      const admin = adminRoutes({ config, users, store: opts.store, onRevoke: (t, subject) => guard?.forgetSignIn(t, subject) });
      // The resource URL is the served URL unless configured; with port 0 it is known after listen, so
      // the guard is made then (a request in between gets 503).
      let guard = oauth?.resource
        ? new ResourceGuard({ oauth, users, servedUrl: oauth.resource, env: opts.env, store: opts.store })
        : undefined;
      const http: HttpOptions = {
        ...(signIns ? { routes: (pathname: string, req: IncomingMessage) => signIns.route(pathname, req) } : {}),
        sessionIdleMs: config.gateway?.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS,
        // Tool calls of 2026-07-28 stream too: a proxy's read timeout then bounds a hung replica without
        // cutting a slow tool (docs/scaling.md §nginx).
        streamToolCalls: true,
        ...(config.gateway?.keepAliveMs ? { keepAliveMs: config.gateway.keepAliveMs } : {}),
        ...(router ? { sessions: router } : {}),
        maxSessionsPerUser: config.gateway?.maxSessionsPerUser ?? DEFAULT_MAX_SESSIONS_PER_USER,
        maxSessionsSetting: 'gateway.maxSessionsPerUser in parley.json',
        ...(config.gateway?.maxConnections ? { maxConnections: config.gateway.maxConnections } : {}),
        ...how.http,
        // The sign-in redirect (./upstream-signin.ts) comes back to the public address's host.
        ...(signIns ? { allowedHosts: [signIns.host, ...(how.http.allowedHosts ?? [])] } : {}),
        ...(hasUsers
          ? {
              requireAuth: true,
              authenticate: (req: IncomingMessage) => {
                // A retry another replica forwards (./forward.ts): the caller's identity, signed with the shared secret.
                const fwd = req.headers[FORWARD_HEADER];
                const forwarded =
                  opts.secret && selfUrl && typeof fwd === 'string' ? checkForwardProof(opts.secret, fwd, selfUrl) : undefined;
                const vouched = forwarded && forwardedAuth(forwarded);
                if (vouched) return vouched;
                if (!guard) throw new HttpDenial(503, { 'retry-after': '1' }, '');
                return guard.authenticate(req);
              },
              // Tenant administrators' views (./admin.ts), then the OAuth metadata.
              routes: (pathname: string, req: IncomingMessage) =>
                signIns?.route(pathname, req) ?? admin(pathname, req) ?? guard?.route(pathname, req),
            }
          : {}),
      };
      const h = keep(await serve((c) => factory(c as never), { http }));
      signInsServed = !!signIns;
      guard ??= new ResourceGuard({ oauth, users, servedUrl: h.url, env: opts.env, store: opts.store });
      // serve() reads the options at each request: the 401 for a request without credentials names
      // the metadata document (RFC 9728 §5.1).
      http.challenge = guard.challenge;
      selfUrl = h.url;
      return h;
    },
    stats: () => ({
      users: spaces.size,
      sessions: [...spaces.values()].reduce((n, s) => n + s.sessions.size, 0),
      openCalls: [...spaces.values()].reduce((n, s) => n + s.calls.size, 0),
      parked: lot.size,
    }),
    async close() {
      lot.closeAll();
      holds.clear();
      router?.close();
      await Promise.all([...spaces.values()].map((s) => s.host.close()));
    },
  };
}

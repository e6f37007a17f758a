/**
 * `serve(factory, …)`: dual-era hosting. stdio: `./stdio.ts` (the SDK's `serveStdio`). HTTP routes 2025-era
 * requests (`isLegacyRequest`) to sessionful `WebStandardStreamableHTTPServerTransport`s (they can push
 * elicitation and roots requests) and everything else to `createMcpHandler(factory, {legacy:'reject'})`
 * (sdk.md §1.8, §3 #3). Binds 127.0.0.1 and answers a foreign Host or Origin with HTTP 403.
 * List changes reach both eras through `ListFanout` (`fanout.ts`): 2025-era sessions by their own
 * `notifications/<kind>/list_changed`, 2026-07-28 clients on their `subscriptions/listen` streams.
 * @module
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import {
  createMcpHandler,
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  isLegacyRequest,
  isInitializeRequest,
  localhostAllowedHostnames,
  validateHostHeader,
  validateOriginHeader,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { AuthInfo, McpServer } from '@modelcontextprotocol/server';
// Loaded in the HTTP branch only: a stdio server does not pay for it at start-up (~40 ms CPU).
import type { toWebRequest } from '@modelcontextprotocol/node';
import { checkWhole } from './bounds.js';
import type { ParleyServer } from './server.js';
import { ListFanout } from './fanout.js';
import { ListChanges } from './lists.js';
import type { ListChangeScope, ListKind } from './lists.js';
import { userOfAuth } from './era.js';
import { serveStdioConnection } from './stdio.js';
import { writeResponse } from './node-response.js';
import { MAX_JSON_DEPTH, overDeepAt } from '../schema/json-depth.js';
import { checkJsonRpcMessage } from './message-check.js';
import { DEFAULT_SESSION_EVENT_LIMITS, SessionEvents } from './session-events.js';
import type { SessionEventLimits } from './session-events.js';

/**
 * Builds one server per connection (legacy HTTP, stdio) or per request (2026-07-28 HTTP). `ctx.authInfo`
 * is what `HttpOptions.authenticate` returned for the request that caused the construction (HTTP only).
 */
export type ServerFactory = (ctx?: { authInfo?: AuthInfo; era?: 'legacy' | 'modern' }) => ParleyServer | McpServer;

/** HTTP options. */
export interface HttpOptions {
  /** @default 0 (any free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** Endpoint path. @default '/mcp' */
  path?: string;
  /** Extra Host/Origin hostnames accepted besides localhost, 127.0.0.1 and [::1]. */
  allowedHosts?: string[];
  /**
   * Verifies the request's credentials; the result reaches tools as `ctx.user` (`extra.sub` or `clientId`).
   * Throwing an {@link HttpDenial} answers the request with it (e.g. a 401 with an OAuth challenge).
   */
  authenticate?: (req: IncomingMessage) => AuthInfo | undefined | Promise<AuthInfo | undefined>;
  /** When `authenticate` returns nothing, answer HTTP 401 (`WWW-Authenticate: Bearer`). @default false */
  requireAuth?: boolean;
  /** The `WWW-Authenticate` value of that 401. @default 'Bearer' */
  challenge?: string;
  /**
   * Answers GET/OPTIONS requests for paths other than the endpoint (after the Host/Origin checks), e.g.
   * RFC 9728 metadata under `/.well-known/`. `undefined` falls through to the 404.
   */
  routes?: (pathname: string, req: IncomingMessage) => HttpDenial | undefined | Promise<HttpDenial | undefined>;
  /**
   * A 2025-era session with no request for this long, and none open, is closed (clients that vanish
   * without HTTP DELETE would otherwise keep it forever), ms. Checked every `min(idle, 60 000)` ms.
   * @default 1_800_000 (30 min)
   */
  sessionIdleMs?: number;
  /**
   * Most open 2025-era sessions per user (`extra.sub`, else `clientId`; one anonymous user without
   * `authenticate`). An `initialize` over it gets HTTP 429 with a JSON-RPC error naming the cap.
   * @default 1000
   */
  maxSessionsPerUser?: number;
  /**
   * Resumable 2025-era streams (basic/transports §Resumability and Redelivery): each session keeps its
   * SSE events in memory (`./session-events.ts`) so a 2025-11-25 client whose stream broke resumes it
   * with GET `Last-Event-ID`. Bounds per session: `maxEvents` (256), `maxBytes` (1 MiB); a stream's
   * events go `deliveredGraceMs` (2000 ms) after the HTTP response carrying them was written out in
   * full, else `graceMs` (30000 ms) after its last response. A resumable client that drops a POST's
   * stream has `resumeWaitMs` (5000 ms) to resume before its open requests are cancelled. `false` turns
   * it off (no event ids; a dropped stream cancels its requests at once).
   * @default the bounds above
   */
  resumability?: SessionEventLimits | false;
  /** Names the setting behind `maxSessionsPerUser` in the 429 message. @default 'maxSessionsPerUser' */
  maxSessionsSetting?: string;
  /**
   * Longest time to receive one request's headers and body, ms (Node's `requestTimeout`, checked every
   * second). A client that stalls mid-request gets HTTP 408 and its connection is closed. A response
   * that streams for longer (an SSE stream waiting on a person) is not affected: it starts after the
   * request was received. @default {@link REQUEST_RECEIVE_MS} (30 000)
   */
  requestReceiveMs?: number;
  /**
   * Most TCP connections open at once (Node's `server.maxConnections`). A connection over it is closed
   * as soon as it is accepted, before any byte is read (no HTTP answer is possible), so a flood of idle
   * connections cannot use up the process's file descriptors while each waits out `requestReceiveMs`.
   * A 2025-era client holds one or two per session (its GET stream, a POST). A whole number from 1 to
   * 1 000 000; anything else makes `serve()` reject with a RangeError naming it.
   * @default {@link MAX_CONNECTIONS} (10 000)
   */
  maxConnections?: number;
  /**
   * Period of the SSE keep-alive comment (`: keepalive`) on every open event stream of both eras (a
   * 2025-era POST answer or GET stream, a 2026-07-28 streamed answer or `subscriptions/listen`), ms: a
   * stream waiting on a person is never silent longer than this, so a proxy's read timeout (nginx
   * `proxy_read_timeout`) can be a small multiple of it. 0 turns it off. A whole number; anything else
   * makes `serve()` reject with a RangeError naming it. @default 15 000 (the SDK's)
   */
  keepAliveMs?: number;
  /**
   * Answer 2026-07-28 `tools/call` requests as an SSE stream (headers at once, keep-alive comments until
   * the result) instead of one JSON body sent when the tool is done: a slow tool's answer then carries
   * bytes every `keepAliveMs`, so a proxy's read timeout tells a hung process from a slow tool. Other
   * requests, and a request whose `Accept` lacks `text/event-stream`, keep their JSON answers.
   * @default false (the gateway turns it on)
   */
  streamToolCalls?: boolean;
  /**
   * 2025-era sessions held by other processes (replicas; src/gateway/sessions-route.ts): `newId` mints
   * session ids, and `route` may answer a request whose session this process does not hold (resolving
   * true), before the usual 404. `user` is who the request authenticated as ('' without `authenticate`).
   * @default random UUIDs, and 404 for unknown sessions
   */
  sessions?: {
    newId(): string;
    route(sid: string, req: IncomingMessage, res: ServerResponse, body: unknown, user: string): Promise<boolean>;
  };
}

/** A running server. */
export interface ServeHandle {
  /** `http://127.0.0.1:<port>/mcp`, or `stdio:` */
  url: string;
  /**
   * Stops serving. A request still in flight on a 2025-era HTTP session is answered first with JSON-RPC
   * -32603 ("the server is shutting down: …"), so its client does not wait for its own timeout; then every
   * session and connection is closed (the answers get at most 1000 ms to be written). A 2026-07-28
   * request's connection is closed, which its client sees at once.
   */
  close(): Promise<void>;
  /**
   * Says "these lists changed" to this handle's clients: every 2025-era HTTP session and the stdio
   * connection get `notifications/<kind>/list_changed`; every 2026-07-28 `subscriptions/listen` stream
   * (HTTP or stdio) that asked for that kind gets it on the stream. `scope.user` / `scope.era` narrow it.
   * `shared.listChanged` does the same for every handle whose factory uses that `Shared`.
   * @throws TypeError for an unknown kind.
   */
  listChanged(kinds: ListKind | readonly ListKind[], scope?: ListChangeScope): void;
  /**
   * What the factory returned for each open 2025-era HTTP session and for the stdio connection: the
   * instances that outlive a request. Register or remove on them to change those clients' lists (a
   * toolkit server announces it itself); 2026-07-28 HTTP clients get a fresh instance per request.
   */
  connections(): Array<ParleyServer | McpServer>;
}

/** A complete HTTP answer: thrown by `HttpOptions.authenticate`, returned by `HttpOptions.routes`. */
export class HttpDenial extends Error {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    readonly body: string,
  ) {
    super(`HTTP ${status}`);
    this.name = 'HttpDenial';
  }
}

const isParley = (s: ParleyServer | McpServer): s is ParleyServer => 'mcp' in s && 'tool' in s;
const toMcp = (s: ParleyServer | McpServer): McpServer => (isParley(s) ? s.mcp : s);

/** The `ServeHandle` members about list changes. */
function listMembers(fanout: ListFanout<ParleyServer | McpServer>): Pick<ServeHandle, 'listChanged' | 'connections'> {
  const own = new ListChanges();
  own.subscribe((c) => fanout.announce(c));
  return { listChanged: (kinds, scope) => own.announce(kinds, scope), connections: () => fanout.products() };
}

function deny(res: ServerResponse, status: number, message: string, id: string | number | null = null, code = -32000): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }));
}

/** Default of {@link HttpOptions.requestReceiveMs}: 30 s to receive a request's headers and body, ms. */
export const REQUEST_RECEIVE_MS = 30_000;

/** Default of {@link HttpOptions.maxConnections}: TCP connections open at once. */
export const MAX_CONNECTIONS = 10_000;

/**
 * Largest HTTP request body `serve` reads, bytes: the SDK's `DEFAULT_MAX_REQUEST_BODY_SIZE` (4 MiB).
 * The SDK reads the body (`toWebRequest` of `@modelcontextprotocol/node`, which stops at the cap and
 * refuses a larger declared `Content-Length` unread); a longer body gets HTTP 413 with a JSON-RPC error.
 */
export const MAX_REQUEST_BODY_BYTES: number = DEFAULT_MAX_REQUEST_BODY_SIZE;

export { MAX_JSON_DEPTH, overDeepAt } from '../schema/json-depth.js';

/**
 * How long `ServeHandle.close()` waits, in ms, for the error answers it sends to requests still in flight
 * on 2025-era HTTP sessions (-32603, {@link CLOSED_MESSAGE}) to be written before it drops every
 * connection. @default 1000
 */
export const CLOSE_DRAIN_MS = 1000;

/** The error message a request still in flight gets when `ServeHandle.close()` ends its session. */
export const CLOSED_MESSAGE = 'the server is shutting down: this request was not completed';

/** A POST body that could not be used: HTTP `status` and the JSON-RPC error `code` to answer with. */
class BodyError extends Error {
  constructor(
    readonly status: 400 | 413,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads and parses a POST body. Resolves the body (`undefined` when empty) and a web `Request` with the
 * request's headers (for `isLegacyRequest` and the session transport, which is handed the parsed body and
 * reads no body of its own). The body is read from `req` here, as the SDK's `toWebRequest` reads it (UTF-8,
 * a byte-order mark dropped), rather than back out of a web `Request` body stream, which costs more CPU
 * than the read itself. @throws BodyError: 413 over {@link MAX_REQUEST_BODY_BYTES} (a declared
 * `Content-Length` over it is refused unread); 400 with -32600 (Invalid Request) when it nests deeper
 * than {@link MAX_JSON_DEPTH}; 400 with -32700 (Parse error) when it is not JSON; 400 when the stream failed.
 */
async function readJson(req: IncomingMessage, toWeb: typeof toWebRequest): Promise<{ body: unknown; web: Request }> {
  const tooLarge = () =>
    new BodyError(413, -32000, `request body over ${MAX_REQUEST_BODY_BYTES} bytes (4 MiB), the most parley reads; send smaller messages`);
  if (Number(req.headers['content-length']) > MAX_REQUEST_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let bytes = 0;
  let web: Request;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      bytes += chunk.byteLength;
      if (bytes > MAX_REQUEST_BODY_BYTES) throw tooLarge();
      chunks.push(chunk);
    }
    // `req` is read to its end, so the SDK's conversion finds no body left: a Request of the headers only.
    web = await toWeb(req);
  } catch (e) {
    if (e instanceof BodyError) throw e;
    throw new BodyError(400, -32000, `could not read the request body: ${(e as Error).message}`);
  }
  const text = new TextDecoder().decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, bytes));
  const deep = overDeepAt(text, MAX_JSON_DEPTH);
  if (deep >= 0)
    throw new BodyError(
      400,
      -32600,
      `request body nests arrays/objects deeper than ${MAX_JSON_DEPTH} levels (at character ${deep}), the most parley reads (MAX_JSON_DEPTH); send a message with less nesting`,
    );
  try {
    return { body: text ? JSON.parse(text) : undefined, web };
  } catch (e) {
    throw new BodyError(400, -32700, `invalid JSON body: ${(e as Error).message}`);
  }
}

/** The ids of the requests (not responses or notifications) in a POST body: one message or a batch. */
function requestIds(body: unknown): Array<string | number> {
  return (Array.isArray(body) ? body : [body])
    .filter((m): m is { id: string | number; method: string } => !!m && typeof m === 'object' && 'id' in m && 'method' in m)
    .map((m) => m.id);
}

/** Tells the session's event store when this POST's response was written out in full (see SessionEvents.delivered). */
function deliveredOnFinish(res: ServerResponse, ids: Array<string | number>, events: SessionEvents | undefined): void {
  if (events && ids.length) res.once('finish', () => events.delivered(ids));
}

/**
 * A legacy client that drops the HTTP connection of a POST whose requests are still running has given
 * up on them: they are cancelled as if it had sent `notifications/cancelled` (basic/utilities/
 * cancellation), so handlers waiting on a person stop and nothing is left pending.
 */
function cancelOnDisconnect(
  t: WebStandardStreamableHTTPServerTransport,
  res: ServerResponse,
  ids: Array<string | number>,
  events: SessionEvents | undefined,
  waitMs: number,
  onCancel: (ids: Array<string | number>) => void = () => {},
): void {
  if (!ids.length) return;
  res.once('close', () => {
    if (res.writableFinished) return;
    const cancel = () => {
      onCancel(ids);
      for (const requestId of ids)
        t.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'the client disconnected' } });
    };
    // A client that was given event ids may resume the stream (e.g. its forwarding replica died): it has
    // `waitMs` to do so (on any stream of the session) before its requests are cancelled.
    if (!events?.resumable) return cancel();
    const closedAt = Date.now();
    setTimeout(() => {
      if (events.lastReplayAt < closedAt) cancel();
    }, waitMs).unref();
  });
}

/** Serves over stdio (dual-era) or HTTP (dual-era, sessionful legacy leg). */
export async function serve(
  factory: ServerFactory,
  opts: { stdio: true; onClose?: () => void } | { http: HttpOptions },
): Promise<ServeHandle> {
  if ('stdio' in opts) {
    const processSession = `stdio:${randomUUID()}`;
    const fanout = new ListFanout<ParleyServer | McpServer>();
    const h = serveStdioConnection(
      (ctx) => {
        const s = factory({ era: ctx.era });
        if ('useProcessSession' in s) s.useProcessSession(processSession);
        const m = toMcp(s);
        // The pinned instance tells its connection itself, on both eras (the SDK's stdio listen router
        // moves a 2026-07-28 connection's change notifications onto its subscriptions).
        fanout.watch(s);
        fanout.addLive(m, { user: '', era: ctx.era, product: s });
        // The one instance serveStdio pins for the connection: its close is the connection's end (stdin
        // closed, or the transport gave up, e.g. on an oversized message).
        if (opts.onClose) {
          const prev = m.server.onclose;
          m.server.onclose = () => {
            prev?.();
            opts.onClose?.();
          };
        }
        return m;
      },
      () => undefined,
    );
    return {
      url: 'stdio:',
      close: async () => {
        fanout.close();
        await h.close();
      },
      ...listMembers(fanout),
    };
  }
  const { toNodeHandler, toWebRequest } = await import('@modelcontextprotocol/node');
  const o = opts.http;
  const path = o.path ?? '/mcp';
  const maxConnections = checkWhole('serve(): maxConnections', o.maxConnections ?? MAX_CONNECTIONS, 1, 1_000_000, 'connections');
  // DNS-rebinding protection (transports §Security Warning) by the SDK's validators: Host and, when sent, Origin.
  const allowed = [...localhostAllowedHostnames(), ...(o.allowedHosts ?? [])];
  const fanout = new ListFanout<ParleyServer | McpServer>();
  const modernFactory = (ctx: { authInfo?: AuthInfo }) => {
    const s = factory({ authInfo: ctx.authInfo, era: 'modern' });
    fanout.watch(s);
    // A toolkit server's own list change has no connection of its own here: it goes to the listen streams.
    if (isParley(s)) fanout.hookInstance(s.mcp, false);
    return toMcp(s);
  };
  const keepAlive =
    o.keepAliveMs !== undefined ? { keepAliveMs: checkWhole('serve(): keepAliveMs', o.keepAliveMs, 0, 2 ** 31 - 1, 'ms') } : {};
  const modern = createMcpHandler(modernFactory, { legacy: 'reject', bus: fanout.bus, ...keepAlive });
  const modernNode = toNodeHandler(modern);
  // 2026-07-28 tool calls as SSE streams (headers at once, then keep-alive comments until the result).
  const streamed = o.streamToolCalls
    ? createMcpHandler(modernFactory, { legacy: 'reject', bus: fanout.bus, responseMode: 'sse', ...keepAlive })
    : undefined;
  const streamedNode = streamed ? toNodeHandler(streamed) : modernNode;
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  /** Each session's SSE events (resumability), when on. */
  const events = new Map<string, SessionEvents>();
  const resumeLimits = o.resumability === false ? undefined : { ...DEFAULT_SESSION_EVENT_LIMITS, ...o.resumability };
  const owners = new Map<string, string>();
  /** Each session's last request time, open POST/GET count and the request ids of its POSTs in flight. */
  const activity = new Map<string, { last: number; open: number; ids: Set<string | number> }>();
  const idleMs = o.sessionIdleMs ?? 1_800_000;
  const maxSessions = o.maxSessionsPerUser ?? 1000;
  /** Sessions of each user being initialised (not yet in `owners`), so parallel initializes count too. */
  const opening = new Map<string, number>();
  const openSessions = (user: string) => (opening.get(user) ?? 0) + [...owners.values()].filter((u) => u === user).length;
  const sweeper = setInterval(
    () => {
      const now = Date.now();
      for (const e of events.values()) e.prune(now);
      for (const [sid, a] of activity) {
        if (a.open > 0 || now - a.last <= idleMs) continue;
        const t = sessions.get(sid);
        sessions.delete(sid);
        owners.delete(sid);
        activity.delete(sid);
        events.delete(sid);
        void t?.close().catch(() => undefined);
      }
    },
    Math.min(idleMs, 60_000),
  );
  sweeper.unref();

  /**
   * A new 2025-era session's server and transport for `user`, counted as opening until its initialize
   * succeeds or `res` closes. Outside the request handler so that the session's closures do not keep
   * the initialize request and response alive for the session's lifetime.
   */
  async function openSession(
    user: string,
    auth: AuthInfo | undefined,
    res: ServerResponse,
    body: unknown,
  ): Promise<WebStandardStreamableHTTPServerTransport> {
    opening.set(user, (opening.get(user) ?? 0) + 1);
    let counted = true;
    const opened = () => {
      if (!counted) return;
      counted = false;
      const n = (opening.get(user) ?? 1) - 1;
      if (n > 0) opening.set(user, n);
      else opening.delete(user);
    };
    res.once('close', opened);
    const s = factory({ authInfo: auth, era: 'legacy' });
    const m = toMcp(s);
    fanout.watch(s);
    // A toolkit server's own list change: its session (the SDK's behaviour) and the listen streams.
    if (isParley(s)) fanout.hookInstance(m, true);
    const store = resumeLimits && new SessionEvents(resumeLimits);
    deliveredOnFinish(res, requestIds(body), store);
    const t: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => o.sessions?.newId() ?? randomUUID(),
      ...(store ? { eventStore: store } : {}),
      ...keepAlive,
      onsessioninitialized: (id) => {
        opened();
        sessions.set(id, t);
        owners.set(id, user); // the user (extra.sub, else clientId): one client id may serve many users
        const ids = new Set<string | number>();
        activity.set(id, { last: Date.now(), open: 0, ids });
        if (store) {
          events.set(id, store);
          // A request is in flight until its response is sent, even after its POST stream dropped (the
          // client may resume it): only then may its id be used again.
          store.onAnswer = (rid) => ids.delete(rid as string | number);
        }
        fanout.addLive(m, { user, era: 'legacy', product: s });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
        events.delete(id);
        owners.delete(id);
        activity.delete(id);
      },
    });
    await m.connect(t);
    return t;
  }

  const receiveMs = o.requestReceiveMs ?? REQUEST_RECEIVE_MS;
  const limits = { requestTimeout: receiveMs, headersTimeout: receiveMs, connectionsCheckingInterval: 1_000 };
  const server = createServer(limits, async (req, res) => {
    try {
      const host = validateHostHeader(req.headers.host, allowed);
      if (!host.ok) return deny(res, 403, host.message);
      const origin = validateOriginHeader(req.headers.origin, allowed);
      if (!origin.ok) return deny(res, 403, origin.message);
      const pathname = new URL(req.url ?? '/', 'http://x').pathname;
      if (pathname !== path) {
        const r = await o.routes?.(pathname, req);
        if (r) return void res.writeHead(r.status, r.headers).end(r.body);
        return deny(res, 404, `no MCP endpoint here; use ${path}`);
      }
      let auth: AuthInfo | undefined;
      try {
        auth = await o.authenticate?.(req);
      } catch (e) {
        if (e instanceof HttpDenial) return void res.writeHead(e.status, e.headers).end(e.body);
        throw e;
      }
      if (auth) (req as IncomingMessage & { auth?: AuthInfo }).auth = auth;
      else if (o.requireAuth) {
        res.setHeader('www-authenticate', o.challenge ?? 'Bearer');
        return deny(res, 401, 'missing or unknown bearer token: send Authorization: Bearer <token> (parley serve token <user> makes one)');
      }
      let body: unknown;
      let web: Request | undefined;
      if (req.method === 'POST') {
        try {
          ({ body, web } = await readJson(req, toWebRequest));
        } catch (e) {
          if (!(e instanceof BodyError)) throw e;
          // The rest of an oversized body is not read: the connection cannot carry another request.
          if (e.status === 413) res.setHeader('connection', 'close');
          return deny(res, e.status, e.message, null, e.code);
        }
      }
      const sid = req.headers['mcp-session-id'];
      const legacy =
        typeof sid === 'string' || (await isLegacyRequest(body !== undefined && web ? web : await toWebRequest(req, body ?? null), body));
      if (!legacy) {
        // Not kept while the call waits (this frame lives as long as the request): a web Request per
        // pending call is heap per session. (A session's transport keeps the one it is handed instead.)
        web = undefined;
        // Streamed only for a client that accepts an event stream; one that accepts JSON alone gets JSON.
        const node =
          (body as { method?: unknown } | undefined)?.method === 'tools/call' && req.headers.accept?.includes('text/event-stream')
            ? streamedNode
            : modernNode;
        return void (await fanout.runAs(userOfAuth(auth), () => node(req, res, body)));
      }
      // One JSON-RPC 2.0 message per POST (transports §Sending Messages; MCP has no batches since
      // 2025-06-18): anything else gets -32600 here, where the SDK's transport would answer -32700 with id
      // null, answer an empty batch with nothing, or run a batch (./message-check.ts).
      if (body !== undefined) {
        const bad = checkJsonRpcMessage(body, 'body');
        if (bad) return deny(res, 400, bad.error.message, bad.id, bad.error.code);
      }
      // The session's transport reads the web Request (a POST's is `web`, its body already parsed) and
      // answers a web Response, written here (./node-response.ts: no timer before an SSE response's headers).
      // `web` is let go once handed over: a stream's answer can last as long as its session.
      const answer = async (t: WebStandardStreamableHTTPServerTransport) => {
        const answered = t.handleRequest(web ?? (await toWebRequest(req, null)), {
          authInfo: auth,
          ...(body !== undefined && { parsedBody: body }),
        });
        web = undefined;
        await writeResponse(res, await answered);
      };
      if (typeof sid === 'string') {
        const t = sessions.get(sid);
        if (!t) {
          if (await o.sessions?.route(sid, req, res, body, userOfAuth(auth))) return;
          return deny(res, 404, `unknown MCP session "${sid}"; initialize again`);
        }
        // A session belongs to whoever opened it: another identity's request gets the same 404.
        if (owners.get(sid) !== userOfAuth(auth)) return deny(res, 404, `unknown MCP session "${sid}"; initialize again`);
        // Request ids are unique per session (basic §Requests): a second request with the id of one still
        // in flight would take over its response stream (the SDK maps streams by id), so the first
        // never got its answer and the second got the first's.
        const a = activity.get(sid);
        const ids = requestIds(body);
        const reused = a && ids.find((id) => a.ids.has(id));
        if (a && reused !== undefined)
          return deny(
            res,
            400,
            `Invalid Request: request id ${JSON.stringify(reused).slice(0, 100)} is already used by a request in flight on this session; request ids must be unique per session`,
            reused,
            -32600,
          );
        const release = (done: Array<string | number>) => {
          for (const id of done) a?.ids.delete(id);
        };
        const ev = events.get(sid);
        cancelOnDisconnect(t, res, ids, ev, resumeLimits?.resumeWaitMs ?? 0, release);
        deliveredOnFinish(res, ids, ev);
        if (a) {
          // A request the client cancels is answered by nobody (basic/utilities/cancellation).
          for (const m of Array.isArray(body) ? body : [body])
            if ((m as { method?: unknown } | null)?.method === 'notifications/cancelled')
              a.ids.delete((m as { params?: { requestId?: string | number } }).params?.requestId as string | number);
          for (const id of ids) a.ids.add(id);
          a.open++;
          a.last = Date.now();
          res.once('close', () => {
            a.open--;
            a.last = Date.now();
            // Answered in full, or cancelled at once: the ids are free. A stream that dropped while the
            // client may resume keeps them until each is answered (`onAnswer`) or cancelled (`release`).
            if (res.writableFinished || !ev?.resumable) release(ids);
          });
        }
        return void (await answer(t));
      }
      if (!isInitializeRequest(body)) return deny(res, 400, 'a legacy request without MCP-Session-Id must be initialize');
      const user = userOfAuth(auth);
      if (openSessions(user) >= maxSessions) {
        const who = user ? `user "${user}"` : 'this server';
        return deny(
          res,
          429,
          `too many open MCP sessions for ${who}: the cap is ${maxSessions} (${o.maxSessionsSetting ?? 'maxSessionsPerUser'}); end one with HTTP DELETE, or wait until idle ones close (after ${idleMs} ms without a request)`,
          (body as { id?: string | number }).id ?? null,
        );
      }
      await answer(await openSession(user, auth, res, body));
    } catch (e) {
      if (!res.headersSent) deny(res, 500, `internal error: ${(e as Error).message}`);
      else res.end();
    }
  });
  server.maxConnections = maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : o.port;
  return {
    url: `http://${o.host ?? '127.0.0.1'}:${port}${path}`,
    ...listMembers(fanout),
    close: async () => {
      clearInterval(sweeper);
      fanout.close();
      // A request still in flight on a 2025-era session is answered before the session closes: its stream
      // would just end, and an SDK client then waits for its own request timeout (60 s by default).
      for (const [sid, t] of sessions)
        for (const id of [...(activity.get(sid)?.ids ?? [])])
          await t
            .send({ jsonrpc: '2.0', id, error: { code: -32603, message: CLOSED_MESSAGE } }, { relatedRequestId: id })
            .catch(() => undefined);
      for (const t of sessions.values()) await t.close().catch(() => undefined);
      sessions.clear();
      await modern.close?.();
      await streamed?.close?.();
      // Those answers reach the wire before the connections are dropped (at most CLOSE_DRAIN_MS).
      const until = Date.now() + CLOSE_DRAIN_MS;
      while ([...activity.values()].some((a) => a.open > 0) && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      server.closeAllConnections?.();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

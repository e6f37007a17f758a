/**
 * One live connection to one server through the SDK v2 `Client` (the third of the three things kept
 * apart: definition → live server → connection). Owns the transport, the capability declaration,
 * the `elicitation/create` / `roots/list` handlers that call the broker, and cancellation of pending
 * broker calls.
 *
 * - Capabilities: `elicitation: {form: {}, url: {}}`, `roots: {listChanged: true}`, and `sampling: {}`
 *   when the handlers answer sampling.
 * - Era: `versionNegotiation: {mode: 'auto'}` (probe `server/discover`, fall back to `initialize`,
 *   `protocol.md` §7.2). On stdio the probe runs in place on the session's own child
 *   (`stdio-transport.ts`): no extra process, and no round trip the SDK's own `'auto'` negotiation
 *   does not pay. A cached legacy verdict (`verdict`, see `era-verdict.ts`) skips the probe:
 *   `connect({prior: {kind: 'legacy'}})` (plain `initialize`); if that fails, the era is probed once.
 * - HTTP: Streamable HTTP first; for `type: 'http'` a failed connect falls back to legacy HTTP+SSE
 *   (`SSEClientTransport`, legacy era only); `type: 'sse'` goes straight to SSE. With `auth`, the
 *   Streamable HTTP transport sends through an {@link AuthSession} (OAuth: tokens, refresh, sign-in,
 *   step-up); a failed authorization fails the start and is not retried over SSE.
 * - Screen (`screen.ts`, 2025 eras): `elicitation/create` and `roots/list` pass a liberal screen on the
 *   transport before the Client validates them, so the broker sees every elicitation as sent. On stdio
 *   parley reads the lines itself (`stdio-transport.ts`); over Streamable HTTP `wire-repair.ts` carries
 *   non-object params past the SDK transport's parse.
 * - Cancellation (`protocol.md` §4.1): each broker call's `signal` aborts when the SDK aborts the
 *   request, when a `notifications/cancelled` for its id is observed on the transport (request id 0
 *   included; wrapped `transport.onmessage`, independent of SDK behaviour), or when the connection closes.
 * @module
 */
import { Client, SdkError, SdkErrorCode, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Implementation, JSONRPCMessage, ServerCapabilities, Transport } from '@modelcontextprotocol/client';
import type { InputHandlers } from './handlers.js';
import { wireHandlers, type Pending } from './input-bridge.js';
import { cutOffReason, DeadlineHold, sseTransport, stdioTransport, withDeadline } from './transports.js';
import { AuthSession } from '../auth/session.js';
import type { Negotiation } from './era-verdict.js';
import { Screen } from './screen.js';
import { MAX_HTTP_MESSAGE_CHARS, repairingFetch } from './wire-repair.js';
import { StreamCalls } from './calls.js';
import { RefusedReports } from './refused-reports.js';
import { StartupRoots, type StartupRootsOutcome } from './startup-roots.js';
import { ParleyStdioTransport } from './stdio-transport.js';
import { exitWords, explainRemoteFailure, explainStartFailure, StartStderr, stderrWords } from './start-failure.js';

import type { Era, ConnectionHooks, ConnectOptions } from './connect-options.js';
export type { Era, ConnectionHooks, ConnectOptions };

/** How `Connection.open` negotiates one attempt: SDK `'auto'`, plain `initialize` after a cached legacy verdict (`prior`), or plain legacy (SSE). */
type AttemptMode = 'auto' | 'prior-legacy' | 'legacy';

/**
 * Default bound on the `server/discover` probe, ms (capped by `startupMs`; a server's `timeouts.probeMs`
 * sets its own). On stdio a silent server is classified legacy after it (`protocol.md` §7.2); it
 * includes the child's boot time (the probe is its first message), so it is generous. A slow dual-era
 * server taken as legacy still works, on 2025 terms: its pushed requests name no call, so while calls
 * of several sessions are in flight on it they cannot be attributed (calls.ts). Such a verdict is not
 * cached (`eraUncertain`), so the next start probes again.
 */
export const PROBE_TIMEOUT_MS = 10_000;

export class Connection {
  readonly era: Era;
  readonly revision: string;
  readonly serverCapabilities: ServerCapabilities | undefined;
  readonly serverInfo: Implementation | undefined;
  readonly transportKind: 'stdio' | 'streamable-http' | 'sse';
  #negotiation: Negotiation = 'probed';
  /** How the era was reached (see {@link Negotiation}). */
  get negotiation(): Negotiation {
    return this.#negotiation;
  }
  #eraUncertain = false;
  /**
   * The era is `legacy` only because the probe went unanswered for the whole probe timeout: a slow
   * start (e.g. `npx` installing the package) looks the same as a silent legacy server, so this
   * verdict is not worth caching.
   */
  get eraUncertain(): boolean {
    return this.#eraUncertain;
  }
  #handlers: InputHandlers | undefined;
  #closing = false;
  #closed = false;
  #startupRoots: StartupRootsOutcome = 'none';
  /** Whether the server asked `roots/list` while starting, and how parley waited for it (`startup-roots.ts`). */
  get startupRoots(): StartupRootsOutcome {
    return this.#startupRoots;
  }
  readonly #life = new AbortController();
  /** Aborts when the connection closes (stopped, crashed, or the transport failed). */
  get lifetime(): AbortSignal {
    return this.#life.signal;
  }
  readonly #pending: Set<Pending>;
  readonly #completions = new Map<string, Set<() => void>>();
  /** Reports of messages the SDK's HTTP transports dropped unparsed, limited per window (`refused-reports.ts`). */
  readonly #refused = new RefusedReports((detail, count) => this.#handlers?.malformedMessage?.(this.name, detail, count));

  private constructor(
    readonly name: string,
    readonly client: Client,
    readonly transport: Transport,
    kind: Connection['transportKind'],
    pending: Set<Pending>,
  ) {
    this.#pending = pending;
    this.transportKind = kind;
    this.era = client.getProtocolEra() === 'modern' ? 'modern' : 'legacy';
    this.revision = client.getNegotiatedProtocolVersion() ?? 'unknown';
    this.serverCapabilities = client.getServerCapabilities();
    this.serverInfo = client.getServerVersion();
  }

  /** Child pid for stdio connections. */
  get pid(): number | null {
    return this.transport instanceof ParleyStdioTransport ? this.transport.pid : null;
  }

  get closed(): boolean {
    return this.#closed;
  }

  #stderrTail: StartStderr | undefined;
  /**
   * How a stdio server's process ended, for the error of a call it took down with it: `the server
   * process exited with code 7; its stderr ended with: "…"` (the last 3 non-blank stderr lines,
   * `start-failure.ts`), or `undefined` (still running, or not stdio). Waits one event-loop turn for
   * stderr that raced the exit.
   */
  async endedHow(): Promise<string | undefined> {
    if (!(this.transport instanceof ParleyStdioTransport)) return undefined;
    await new Promise((r) => setImmediate(r));
    return this.#endedWords();
  }

  /** {@link endedHow} without the wait (the process's `close` event: exit status and stderr are in). */
  #endedWords(): string | undefined {
    if (!(this.transport instanceof ParleyStdioTransport)) return undefined;
    const words = [exitWords(this.transport), this.#stderrTail ? stderrWords(this.#stderrTail) : undefined].filter((w) => w !== undefined);
    return words.length > 0 ? words.join('; ') : undefined;
  }

  /** Number of broker calls (elicit / listRoots) currently in flight. */
  get pendingInputs(): number {
    return this.#pending.size;
  }

  /**
   * Connects, negotiates and wires handlers. Rejects with the SDK's error (or a timeout after
   * `startupMs`); on rejection everything it started is closed.
   */
  static async open(o: ConnectOptions): Promise<Connection> {
    const pending = new Set<Pending>();
    const startup = new StartupRoots();
    const holder: { conn?: Connection; era: Era; revision: string; screen: Screen; startup: StartupRoots; streams: StreamCalls } = {
      era: 'legacy',
      revision: 'unknown',
      screen: new Screen(),
      startup,
      streams: new StreamCalls(),
    };
    // Every stderr chunk counts as activity for the start-up roots wait, and is kept (bounded) to say
    // why a failed start failed (start-failure.ts).
    const given = o.hooks;
    const startStderr = new StartStderr();
    o = { ...o, hooks: { ...given, onStderr: (chunk) => (startup.touch(), startStderr.write(chunk), given.onStderr(chunk)) } };
    let current: Client | undefined;
    let currentTransport: Transport | undefined;
    let timedOut = false;
    const probeMs = Math.min(o.startupMs, o.probeTimeoutMs ?? PROBE_TIMEOUT_MS);
    const attempt = async (transport: Transport, kind: Connection['transportKind'], mode: AttemptMode) => {
      if (timedOut) throw new Error('start-up deadline passed');
      if (transport instanceof ParleyStdioTransport) startStderr.reset(); // a failure quotes this process's stderr
      currentTransport = transport;
      const t0 = Date.now();
      const client = (current = new Client(o.clientInfo, {
        capabilities: { elicitation: { form: {}, url: {} }, roots: { listChanged: true }, ...(o.handlers.sample ? { sampling: {} } : {}) },
        versionNegotiation: { mode: mode === 'legacy' ? 'legacy' : 'auto', probe: { timeoutMs: probeMs } },
      }));
      wireHandlers(client, o, pending, holder);
      try {
        await client.connect(transport, {
          timeout: o.startupMs,
          ...(o.signal ? { signal: o.signal } : {}),
          ...(mode === 'prior-legacy' ? { prior: { kind: 'legacy' as const } } : {}),
        });
      } catch (err) {
        await client.close().catch(() => {});
        throw err;
      }
      const conn = new Connection(o.name, client, transport, kind, pending);
      conn.#eraUncertain = mode === 'auto' && conn.era === 'legacy' && Date.now() - t0 >= probeMs;
      holder.conn = conn;
      holder.era = conn.era;
      holder.revision = conn.revision;
      conn.#handlers = o.handlers;
      conn.#stderrTail = startStderr;
      conn.#observe(o.hooks, holder.screen, startup);
      return conn;
    };
    /** Connects with the cached verdict; if that fails (and time is left), probes once instead. */
    const withVerdict = async (direct: () => Promise<Connection>, probe: () => Promise<Connection>): Promise<Connection> => {
      let conn: Connection;
      try {
        conn = await direct();
      } catch (err) {
        if (timedOut || o.signal?.aborted) throw err;
        o.log?.(
          'info',
          `server "${o.name}": connecting with the cached ${o.verdict} era verdict failed (${(err as Error).message}); probing the era instead`,
        );
        conn = await probe();
        conn.#negotiation = 'corrected';
        return conn;
      }
      conn.#negotiation = conn.era === o.verdict ? 'verdict' : 'corrected';
      return conn;
    };
    const onTimeout = () => {
      // Kill what the abandoned attempt spawned (stdio child) so nothing outlives the failed start.
      timedOut = true;
      const pid = currentTransport instanceof ParleyStdioTransport ? currentTransport.pid : null;
      void current?.close().catch(() => {});
      void currentTransport?.close().catch(() => {});
      if (pid) {
        try {
          process.kill(pid, 'SIGTERM'); // it did not answer in time; don't wait for a stdin-EOF exit
        } catch {
          /* gone */
        }
      }
    };
    const hold = new DeadlineHold();
    const settled = async (conn: Connection): Promise<Connection> => {
      // Roots before the first call (startup-roots.ts): legacy eras only.
      if (conn.era === 'legacy') conn.#startupRoots = await startup.settle(() => conn.client.ping());
      return conn;
    };
    try {
      return await withDeadline(
        o.startupMs,
        `server "${o.name}" did not connect within startupMs = ${o.startupMs} ms`,
        o.signal,
        onTimeout,
        async () => settled(await connectAny()),
        hold,
      );
    } catch (err) {
      if (o.def.type !== 'stdio') {
        // "Connection closed" says nothing when parley closed it: name the cap.
        const cut = cutOffReason(currentTransport);
        if (cut && err instanceof Error && !err.message.includes(cut.message)) err.message = `${err.message}: ${cut.message}`;
        throw explainRemoteFailure(err);
      }
      throw await explainStartFailure(err, currentTransport instanceof ParleyStdioTransport ? currentTransport : undefined, startStderr);
    }
    async function connectAny(): Promise<Connection> {
      const def = o.def;
      if (def.type === 'sse') return attempt(sseTransport(def), 'sse', 'legacy');
      if (def.type === 'stdio') {
        // The era is found on the one process the session uses (stdio-transport.ts): `server/discover`
        // in place, then `initialize` on the same pipe when it is not answered as modern. A server
        // that exits on that probe (some SDKs end on any request before `initialize`) is started once
        // more with plain `initialize`; its legacy verdict then spares it the probe next time.
        const legacy = () => attempt(stdioTransport(def, o), 'stdio', 'prior-legacy');
        const detect = async (): Promise<Connection> => {
          const transport = stdioTransport(def, o);
          try {
            return await attempt(transport, 'stdio', 'auto');
          } catch (err) {
            const diedOnProbe = err instanceof SdkError && err.code === SdkErrorCode.EraNegotiationFailed && transport.exited;
            if (!diedOnProbe || timedOut || o.signal?.aborted) throw err;
            o.log?.('info', `server "${o.name}" exited on the server/discover probe; starting it again with initialize (legacy era)`);
            return legacy();
          }
        };
        if (o.verdict === 'legacy') return withVerdict(legacy, detect);
        const conn = await detect();
        if (o.verdict === 'modern') conn.#negotiation = conn.era === 'modern' ? 'verdict' : 'corrected';
        return conn;
      }
      const session = o.auth ? new AuthSession(o.auth, def, (fn) => o.pause.during(() => hold.during(fn))) : undefined;
      await session?.prepare();
      // Streamable HTTP probes in place anyway; a legacy verdict saves the server/discover round trip.
      // A fetch that carries requests the SDK transport would drop unanswered and caps what one message
      // may grow to (wire-repair.ts), around the OAuth session's fetch when there is one (there always is
      // under createHost, so the repair must not depend on its absence).
      const streamable = (mode: AttemptMode) =>
        attempt(
          new StreamableHTTPClientTransport(new URL(def.url), {
            requestInit: { headers: def.headers },
            fetch: repairingFetch(session ? (session.fetch as typeof fetch) : fetch, MAX_HTTP_MESSAGE_CHARS, undefined, holder.streams),
          }),
          'streamable-http',
          mode,
        );
      const connectHttp = async (): Promise<Connection> => {
        try {
          return o.verdict === 'legacy'
            ? await withVerdict(
                () => streamable('prior-legacy'),
                () => streamable('auto'),
              )
            : await streamable('auto');
        } catch (err) {
          // An authorization problem (or a 401 to authorize first): SSE would not fix it.
          if (session?.failure) throw session.failure;
          if (session?.deferred) throw err;
          try {
            const conn = await attempt(sseTransport(def), 'sse', 'legacy');
            if (o.verdict !== undefined) conn.#negotiation = conn.era === o.verdict ? 'verdict' : 'corrected';
            return conn;
          } catch {
            throw err;
          }
        }
      };
      if (!session) return connectHttp();
      // A 401 while connecting fails that connect at once; authorize outside it (the person's time is
      // held off the start-up bound), then connect once more with the tokens.
      session.connecting = true;
      try {
        for (let round = 0; ; round++) {
          try {
            return await connectHttp();
          } catch (err) {
            if (!session.takeDeferred() || round >= 2 || timedOut || o.signal?.aborted) throw session.failure ?? err;
            await session.authorize({});
          }
        }
      } finally {
        session.connecting = false;
      }
    }
  }

  /** Resolves when `notifications/elicitation/complete` arrived for every id, or after `ms`. Never rejects. */
  waitForCompletions(ids: string[], ms: number, signal?: AbortSignal): Promise<'completed' | 'waited'> {
    return new Promise((resolve) => {
      const left = new Set(ids);
      const offs: Array<() => void> = [];
      const finish = (how: 'completed' | 'waited') => {
        clearTimeout(timer);
        for (const off of offs) off();
        signal?.removeEventListener('abort', onAbort);
        resolve(how);
      };
      const onAbort = () => finish('waited');
      const timer = setTimeout(() => finish('waited'), ms);
      signal?.addEventListener('abort', onAbort, { once: true });
      for (const id of ids) {
        let set = this.#completions.get(id);
        if (!set) this.#completions.set(id, (set = new Set()));
        const fn = () => {
          left.delete(id);
          if (left.size === 0) finish('completed');
        };
        set.add(fn);
        offs.push(() => set.delete(fn));
      }
      if (ids.length === 0) finish('completed');
    });
  }

  /** Closes the client (the stdio transport then ends stdin, SIGTERM, SIGKILL: see manager docs). */
  async close(reason = 'server stopped'): Promise<void> {
    this.#closing = true;
    this.#abortAll(reason, true);
    this.#life.abort(new Error(reason));
    await this.client.close().catch(() => {});
    this.#closed = true;
  }

  /** Aborts every broker call in flight for this connection (their `signal`s fire with `reason`). */
  abortPendingInputs(reason: string): void {
    this.#abortAll(reason);
  }

  /**
   * `closed`: the connection ends (the server exited, or parley stops it); the reason then carries the
   * SDK's `code: 'CONNECTION_CLOSED'`, so presenters say "*server* stopped while asking" once for all
   * its prompts instead of a withdrawal per request (src/ui/server-stop.ts).
   */
  #abortAll(reason: string, closed = false): void {
    for (const p of this.#pending) p.abort(closed ? Object.assign(new Error(reason), { code: 'CONNECTION_CLOSED' }) : new Error(reason));
  }

  /** Aborts the broker calls for the server's request `id` (legacy eras); whether there was one. */
  #cancel(id: string | number, reason: string): boolean {
    let found = false;
    for (const p of this.#pending)
      if (p.id === id) {
        found = true;
        p.abort(new Error(reason));
      }
    return found;
  }

  #observe(hooks: ConnectionHooks, screen: Screen, startup: StartupRoots): void {
    const t = this.transport;
    const inner = t.onmessage;
    const legacy = this.era === 'legacy';
    t.onmessage = (received: JSONRPCMessage, extra?: unknown) => {
      startup.touch();
      // 2025 eras: requests the Client would refuse before parley's handler are screened (screen.ts).
      const msg = legacy ? screen.inbound(received) : received;
      // 2026-07-28 has no server→client requests: the Client drops them without a word (the server
      // would wait for its own timeout), so parley answers -32601 itself.
      if (!legacy && isRequest(msg) && (extra as { classification?: unknown } | undefined)?.classification === undefined) {
        void t
          .send({
            jsonrpc: '2.0',
            id: msg.id,
            error: {
              code: -32601,
              message: `Method not found: ${msg.method} (server-to-client requests do not exist on protocol revision ${this.revision}; return an input_required result instead)`,
            },
          } as JSONRPCMessage)
          .catch(() => {});
        return;
      }
      const m = msg as { method?: string; params?: { requestId?: string | number; reason?: string; elicitationId?: string } };
      if (m.method === 'notifications/cancelled' && m.params && m.params.requestId !== undefined) {
        const id = m.params.requestId;
        const reason = m.params.reason ?? 'cancelled by the server';
        // A request read in the same chunk as its cancellation has no Pending yet: the SDK calls its
        // handler a microtask after this. Try once more when those have run (ids are never reused).
        if (!this.#cancel(id, reason)) setImmediate(() => this.#cancel(id, reason));
      }
      if (m.method === 'notifications/elicitation/complete' && typeof m.params?.elicitationId === 'string') {
        for (const fn of [...(this.#completions.get(m.params.elicitationId) ?? [])]) fn();
      }
      (inner as ((m: JSONRPCMessage, e?: unknown) => void) | undefined)?.call(t, msg, extra);
    };
    // A message an SDK transport (HTTP+SSE, or Streamable HTTP beyond wire-repair.ts) could not parse as
    // JSON-RPC is dropped before onmessage, with no id to answer; tell the broker so the person hears of
    // it and it is audited (screen.ts covers everything that does reach onmessage; parley's stdio
    // transport reports what it cannot pass on itself).
    const innerError = t.onerror;
    t.onerror = (err: Error) => {
      const issues = (err as { issues?: unknown }).issues;
      // At most REFUSED_PER_WINDOW reports per window, then one summary (as parley's stdio reader).
      if (err?.name === 'ZodError' && Array.isArray(issues)) this.#refused.add(describeUnparsed(issues));
      innerError?.call(t, err);
    };
    const prevClose = this.client.onclose;
    this.client.onclose = () => {
      prevClose?.();
      this.#refused.flush();
      this.#abortAll('server connection closed', true);
      this.#life.abort(new Error('server connection closed'));
      const unexpected = !this.#closing && !this.#closed;
      this.#closed = true;
      // The state's message (what `ServerUnavailableError` and a gateway's client later read) says how
      // the process ended; the stdio transport closes after the child's `close` event, so it is known.
      if (unexpected)
        hooks.onUnexpectedClose(`connection closed unexpectedly (${this.#endedWords() ?? 'server exited or the transport failed'})`);
    };
    const c = this.client;
    c.setNotificationHandler('notifications/tools/list_changed', () => hooks.onListChanged('tools'));
    c.setNotificationHandler('notifications/resources/list_changed', () => hooks.onListChanged('resources'));
    c.setNotificationHandler('notifications/prompts/list_changed', () => hooks.onListChanged('prompts'));
    c.setNotificationHandler('notifications/message', (n) => hooks.onLog(n.params as { level: string; logger?: string; data: unknown }));
  }
}

/** A short reason for a JSON-RPC message the transport dropped, from the SDK's parse issues. */
function describeUnparsed(issues: unknown[]): string {
  const text = JSON.stringify(issues).slice(0, 20_000);
  const what = /"path":\["params"\]/.test(text)
    ? 'a request or notification whose "params" is not an object (null, an array or a value)'
    : /"path":\["params","_meta"\]/.test(text)
      ? 'a message whose "params._meta" is not an object'
      : 'a message that is not valid JSON-RPC 2.0';
  return `${what}; the SDK transport dropped it unanswered (its id could not be read)`;
}

/** A JSON-RPC request (a method and an id). */
function isRequest(m: JSONRPCMessage): m is JSONRPCMessage & { id: string | number; method: string } {
  const r = m as { id?: unknown; method?: unknown };
  return typeof r.method === 'string' && (typeof r.id === 'string' || typeof r.id === 'number');
}

/**
 * The host's server runtime: definitions (`ServerDef`, from config) → live servers (state, stderr,
 * caches, restart schedule) → connections (`connection.ts`).
 *
 * Lifecycle:
 * - `ensureRunning(name)` starts lazily on first use; `startMany(names)` starts in parallel.
 * - Crash or failed start → `error` → restart after capped exponential backoff (`backoff.ts`:
 *   500 ms × 2^n, cap 30000 ms, 8 attempts). Pending broker calls of the dead connection are aborted.
 * - `stop(name)`: closes the SDK client (ends the child's stdin), then SIGTERM after `graceMs`
 *   (2000) and SIGKILL `killAfterMs` (2000) later if the child is still alive ({@link DEFAULT_STOP});
 *   it resolves once the child has exited (bounded by a further `killAfterMs` after SIGKILL).
 * - Era verdict (`era-verdict.ts`): the era each definition negotiated is kept in `eraVerdicts` (the
 *   SQLite store when the host has one, else process-wide memory), keyed by a hash of the effective
 *   definition, and later starts (crash restarts, the next run) connect with it directly instead of
 *   the SDK's sibling-process probe. Event `era` tells how each start negotiated. An explicit
 *   `stop(name)` forgets the verdict (the next start re-detects the era); `stopAll()` keeps it.
 * @module
 */
import type { CallToolResult, GetPromptResult, Implementation, ReadResourceResult, ServerCapabilities } from '@modelcontextprotocol/client';
import type { ServerDef, ServerTimeouts } from '../config/types.js';
import { DEFAULT_TIMEOUTS } from '../config/policy.js';
import { clientErrorText, secretValues } from './client-text.js';
import { backoffDelay, DEFAULT_RESTART_POLICY, type RestartPolicy } from './backoff.js';
import { systemClock, type Clock } from './clock.js';
import { Connection, type Era } from './connection.js';
import { VerdictCache, type Negotiation } from './era-verdict.js';
import type { Store } from '../store/types.js';
import { TypedEmitter } from './emitter.js';
import type { InputHandlers } from './handlers.js';
import { ServerUnavailableError, UnknownServerError, type ServerEvents, type ServerState } from './state.js';
import { StderrRing } from './stderr-ring.js';
import { callToolWithClock, URL_COMPLETE_WAIT_MS } from './tool-call.js';
import { PauseGate } from './tool-clock.js';
import { ListCache } from './list-cache.js';
import { closeBounded, DEFAULT_STOP } from './shutdown.js';
import { SignInError, type AuthContext } from '../auth/session.js';
import { SignInWait } from '../auth/sign-in-wait.js';

export interface ServerManagerOptions {
  handlers: InputHandlers;
  clientInfo: Implementation;
  /** Parent environment the stdio env is merged over. @default process.env */
  env?: Record<string, string | undefined>;
  /** Diagnostics sink; never receives env values or headers. */
  log?: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
  clock?: Clock;
  restart?: Partial<RestartPolicy>;
  /** See `tool-call.ts`. @default 5000 */
  urlCompleteWaitMs?: number;
  /** See {@link DEFAULT_STOP}. */
  stop?: Partial<typeof DEFAULT_STOP>;
  /**
   * Runs before each start with the server's definition and returns the one to connect with, e.g.
   * to resolve `${input:id}` values through the presenter (asked once, then cached by the caller).
   * A rejection fails the start (state `error`, code `START_FAILED`) without an automatic restart (it
   * would only ask the person again); the next use of the server, or `start()`, tries again.
   */
  prepare?: (def: ServerDef) => Promise<ServerDef>;
  /**
   * Where era verdicts are kept: a store with `getEraVerdict`/`putEraVerdict`/`deleteEraVerdict`
   * (e.g. the SQLite store). Without them, a process-wide in-memory map. Store failures are logged
   * (`warn`) and the start probes as if there were no verdict.
   */
  eraVerdicts?: Pick<Store, 'getEraVerdict' | 'putEraVerdict' | 'deleteEraVerdict'>;
  /** Trust a legacy verdict this long after its probe, ms. @default `LEGACY_VERDICT_TTL_MS` (7 days) */
  legacyVerdictTtlMs?: number;
  /** Bound on the `server/discover` era probe, ms (capped by `startupMs`); a server's `timeouts.probeMs` wins. @default `PROBE_TIMEOUT_MS` (10000) */
  probeTimeoutMs?: number;
  /** Largest message a stdio server may write (one line, UTF-8 bytes). @default `MAX_STDIO_MESSAGE_BYTES` (16 MiB) */
  maxMessageBytes?: number;
  /**
   * OAuth client side for HTTP servers (docs/auth.md). A start that fails because sign-in is required,
   * declined or refused, or authorization failed (code `AUTHORIZATION_FAILED`), is not restarted
   * automatically (it would ask the person again and again).
   */
  auth?: AuthContext;
}

interface Live {
  name: string;
  def: ServerDef;
  state: ServerState;
  conn?: Connection;
  starting?: Promise<Connection>;
  startAbort?: AbortController;
  retryTimer?: unknown;
  attempts: number;
  wanted: boolean;
  /**
   * The last start failed for want of authorization (sign-in required, declined, refused): it is not
   * restarted by itself (it would ask again), but the next use starts it again (a sign-in elsewhere,
   * e.g. `parley auth login` into the shared store, may have fixed it since).
   */
  authFailed?: boolean;
  /**
   * After such a failure: the next use starts the server again only once a sign-in was stored for this
   * user or the back-off passed (`../auth/sign-in-wait.ts`); until then it fails at once with the error.
   */
  authWait?: SignInWait;
  /** The last authorization failure logged as a warning (the same one again is logged at `debug`). */
  authSaid?: string;
  /** Era-verdict key of the definition last connected with. */
  defHash?: string;
  /** The definition of the last start after `prepare` (`${input:…}` resolved), for {@link ServerManager.clientText}. */
  prepared?: ServerDef;
  stderr: StderrRing;
  pause: PauseGate;
  cache: ListCache;
}

export interface ConnectionInfo {
  era: Era;
  negotiatedRevision: string;
  serverCapabilities: ServerCapabilities | undefined;
  serverInfo: Implementation | undefined;
  transport: 'stdio' | 'streamable-http' | 'sse';
  pid: number | null;
  /** How the era was reached: probed, from the cached verdict, or a stale verdict corrected. */
  negotiation: Negotiation;
}

export class ServerManager {
  readonly events: TypedEmitter<ServerEvents>;
  readonly #live = new Map<string, Live>();
  readonly #clock: Clock;
  readonly #policy: RestartPolicy;
  readonly #log: NonNullable<ServerManagerOptions['log']>;
  readonly #verdicts: VerdictCache;

  constructor(
    defs: Record<string, ServerDef>,
    private readonly opts: ServerManagerOptions,
  ) {
    this.#clock = opts.clock ?? systemClock;
    this.#policy = { ...DEFAULT_RESTART_POLICY, ...opts.restart };
    this.#log = opts.log ?? (() => {});
    this.events = new TypedEmitter<ServerEvents>((err) => this.#log('warn', `event listener threw: ${String(err)}`));
    this.#verdicts = new VerdictCache(opts.eraVerdicts, this.#log, () => this.#clock.now(), opts.legacyVerdictTtlMs);
    for (const [name, def] of Object.entries(defs)) {
      this.#live.set(name, {
        name,
        def,
        state: { status: 'stopped' },
        attempts: 0,
        wanted: false,
        stderr: new StderrRing(),
        pause: new PauseGate(),
        cache: new ListCache(),
      });
    }
  }

  names(): string[] {
    return [...this.#live.keys()];
  }

  state(name: string): ServerState {
    return this.#get(name).state;
  }

  /** The newest captured stderr lines (bounded, see `stderr-ring.ts`). */
  stderr(name: string): string[] {
    return this.#get(name).stderr.lines();
  }

  /** Negotiation outcome of the current connection, or `undefined` when not running. */
  info(name: string): ConnectionInfo | undefined {
    const c = this.#get(name).conn;
    if (!c) return undefined;
    return {
      era: c.era,
      negotiatedRevision: c.revision,
      serverCapabilities: c.serverCapabilities,
      serverInfo: c.serverInfo,
      transport: c.transportKind,
      pid: c.pid,
      negotiation: c.negotiation,
    };
  }

  timeouts(name: string): ServerTimeouts {
    return { ...DEFAULT_TIMEOUTS, ...this.#get(name).def.timeouts };
  }

  /**
   * `text` (an error message of `server`) as a client may see it (`client-text.ts`): the values of the
   * server's configured and prepared `env`/`headers` and URL credentials as `[redacted]`, and its stderr
   * tail withheld unless `o.stderr`. An unknown server name redacts URL credentials only.
   */
  clientText(server: string, text: string, o: { stderr?: boolean } = {}): string {
    const live = this.#live.get(server);
    const secrets = live
      ? [...new Set([...secretValues(live.prepared), ...secretValues(live.def)])].sort((a, b) => b.length - a.length)
      : [];
    return clientErrorText(text, { secrets, ...(o.stderr ? { stderr: true } : {}) });
  }

  /** Starts now (cancelling a scheduled restart). Resolves when running; rejects with the start error. */
  start(name: string): Promise<Connection> {
    const live = this.#get(name);
    live.wanted = true;
    if (live.conn && !live.conn.closed) return Promise.resolve(live.conn);
    if (live.starting) return live.starting;
    if (live.retryTimer !== undefined) this.#clock.clearTimeout(live.retryTimer);
    live.retryTimer = undefined;
    const p = this.#connect(live).finally(() => {
      if (live.starting === p) live.starting = undefined;
    });
    live.starting = p;
    return p;
  }

  /**
   * Lazy start on first use. Throws {@link ServerUnavailableError} while in `error` (restart pending or
   * given up), except after a failed authorization, which the next use tries again.
   */
  ensureRunning(name: string): Promise<Connection> {
    const live = this.#get(name);
    if (live.state.status === 'error' && !live.starting) {
      if (!live.authFailed) return Promise.reject(new ServerUnavailableError(name, live.state));
      // Not again at every use: only once a sign-in was stored or the back-off passed (one store read,
      // shared by concurrent uses; the callers that see `true` together share one start).
      if (live.authWait)
        return live.authWait.mayRetry().then((again) => {
          if (again || live.starting || live.state.status !== 'error') return this.start(name);
          throw new ServerUnavailableError(name, live.state);
        });
    }
    return this.start(name);
  }

  /** Starts several servers in parallel; never rejects. */
  startMany(names: string[]): Promise<Array<{ name: string; ok: boolean; error?: Error }>> {
    return Promise.all(
      names.map((name) =>
        this.start(name).then(
          () => ({ name, ok: true }),
          (error: Error) => ({ name, ok: false, error }),
        ),
      ),
    );
  }

  /** Stops `name` and forgets its era verdict, so its next start re-detects the era. */
  stop(name: string): Promise<void> {
    return this.#stop(this.#get(name), true);
  }

  /** Stops every server (host shutdown); era verdicts are kept for the next run. */
  async stopAll(): Promise<void> {
    await Promise.all(this.names().map((n) => this.#stop(this.#get(n), false)));
  }

  async #stop(live: Live, forgetVerdict: boolean): Promise<void> {
    live.wanted = false;
    const forgetting = forgetVerdict && live.defHash ? this.#verdicts.forget(live.defHash) : undefined; // never rejects; awaited below
    if (live.retryTimer !== undefined) this.#clock.clearTimeout(live.retryTimer);
    live.retryTimer = undefined;
    live.startAbort?.abort();
    await live.starting?.catch(() => {});
    const conn = live.conn;
    live.conn = undefined;
    live.cache.clear();
    if (conn) await closeBounded(conn, { ...DEFAULT_STOP, ...this.opts.stop });
    await forgetting;
    this.#set(live, { status: 'stopped' });
  }

  /**
   * Calls a tool, starting the server lazily. `o.tag` is an opaque caller label that input requests
   * of this call carry in `InputContext.call.tag` (see `./calls.ts`).
   */
  callTool(
    server: string,
    tool: string,
    args: Record<string, unknown> = {},
    o: { signal?: AbortSignal; tag?: string } = {},
  ): Promise<CallToolResult> {
    return this.ensureRunning(server).then((conn) => {
      const live = this.#get(server);
      const t = this.timeouts(server);
      return callToolWithClock(
        {
          conn,
          pause: live.pause,
          handlers: this.opts.handlers,
          clock: this.#clock,
          toolCallMs: t.toolCallMs,
          maxTotalMs: t.maxTotalMs,
          urlCompleteWaitMs: this.opts.urlCompleteWaitMs ?? URL_COMPLETE_WAIT_MS,
          afterClose: () => this.#nextWords(live),
        },
        tool,
        args,
        o.signal,
        o.tag,
      );
    });
  }

  /**
   * The server's tools, from the list cache until its `notifications/tools/list_changed`.
   * `o.fresh` drops the cached list first (for a caller that has reason to think it is stale).
   */
  listTools(server: string, o: { fresh?: boolean } = {}) {
    if (o.fresh) this.#live.get(server)?.cache.invalidate('tools');
    return this.#cached(server, 'tools', (c) => c.client.listTools(undefined, { cacheMode: 'refresh' }));
  }
  listResources(server: string) {
    return this.#cached(server, 'resources', (c) => c.client.listResources(undefined, { cacheMode: 'refresh' }));
  }
  listResourceTemplates(server: string) {
    return this.#cached(server, 'templates', (c) => c.client.listResourceTemplates(undefined, { cacheMode: 'refresh' }));
  }
  /** The server's prompts, cached like {@link listTools}; `o.fresh` drops the cached list first. */
  listPrompts(server: string, o: { fresh?: boolean } = {}) {
    if (o.fresh) this.#live.get(server)?.cache.invalidate('prompts');
    return this.#cached(server, 'prompts', (c) => c.client.listPrompts(undefined, { cacheMode: 'refresh' }));
  }
  /** Not cached (contents change without list_changed). */
  async readResource(server: string, uri: string): Promise<ReadResourceResult> {
    return (await this.ensureRunning(server)).client.readResource({ uri }, { cacheMode: 'bypass' });
  }
  async getPrompt(server: string, name: string, args?: Record<string, string>, o: { signal?: AbortSignal } = {}): Promise<GetPromptResult> {
    return (await this.ensureRunning(server)).client.getPrompt(
      { name, ...(args ? { arguments: args } : {}) },
      o.signal ? { signal: o.signal } : undefined,
    );
  }

  /**
   * Sends `notifications/roots/list_changed` (2025 eras, `protocol.md` §3.1). Returns `false` without
   * sending when the server is not running or is on 2026-07-28, which has no roots list_changed
   * (`protocol.md` §3.2): a modern server gets roots through `inputRequests` on each request, so the
   * next request sees the new roots.
   */
  async sendRootsListChanged(server: string): Promise<boolean> {
    const c = this.#get(server).conn;
    if (!c || c.closed || c.era === 'modern') return false;
    await c.client.sendRootsListChanged();
    return true;
  }

  async #cached<T>(server: string, key: 'tools' | 'resources' | 'templates' | 'prompts', fetch: (c: Connection) => Promise<T>): Promise<T> {
    const conn = await this.ensureRunning(server);
    return this.#get(server).cache.get(key, () => fetch(conn));
  }

  async #connect(live: Live): Promise<Connection> {
    this.#set(live, { status: 'starting', attempt: live.attempts + 1 });
    const startedAt = this.#clock.now();
    const t = this.timeouts(live.name);
    const abort = (live.startAbort = new AbortController());
    let conn: Connection;
    let defHash = '';
    let prepared = false;
    try {
      const def = this.opts.prepare ? await this.opts.prepare(live.def) : live.def;
      live.prepared = def;
      prepared = true;
      const { defHash: key, verdict } = await this.#verdicts.lookup(def);
      defHash = live.defHash = key;
      conn = await Connection.open({
        name: live.name,
        def,
        handlers: this.opts.handlers,
        clientInfo: this.opts.clientInfo,
        parentEnv: this.opts.env ?? process.env,
        pause: live.pause,
        verdict,
        startupMs: t.startupMs,
        probeTimeoutMs: t.probeMs ?? this.opts.probeTimeoutMs,
        ...(this.opts.maxMessageBytes !== undefined ? { maxMessageBytes: this.opts.maxMessageBytes } : {}),
        log: this.#log,
        signal: abort.signal,
        ...(this.opts.auth ? { auth: this.opts.auth } : {}),
        hooks: {
          onStderr: (chunk) => {
            for (const line of live.stderr.write(chunk)) this.events.emit('stderr', { server: live.name, line });
          },
          onUnexpectedClose: (reason) => this.#crashed(live, conn, reason),
          onListChanged: (kind) => {
            live.cache.invalidate(kind);
            this.events.emit('listChanged', { server: live.name, kind });
          },
          onLog: (p) => this.events.emit('log', { server: live.name, ...p }),
        },
      });
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      if (abort.signal.aborted) throw e; // stop() during start: stop() sets the state
      live.attempts++;
      const code = (e as { code?: unknown }).code === 'START_TIMEOUT' ? 'START_TIMEOUT' : 'START_FAILED';
      const authFailure = e instanceof SignInError || (e as { code?: unknown }).code === 'AUTHORIZATION_FAILED';
      live.authFailed = authFailure;
      // A person who declined is asked again at the next use (they chose to use the server again); any
      // other authorization failure waits for a stored sign-in or the back-off. Not retried by itself
      // either: `prepare` failing (a `${input:…}` the person dismissed or nobody could answer; a retry
      // would only ask again). The next use starts it.
      let waitMs: number | undefined;
      if (authFailure && this.opts.auth && (e as { code?: unknown }).code !== 'SIGN_IN_DECLINED') {
        const a = this.opts.auth;
        live.authWait ??= new SignInWait(a.store, { ...a.scope, server: live.name }, () => this.#clock.now(), a.signInRetry);
        await live.authWait.failed();
        waitMs = live.authWait.delayMs;
      } else live.authWait?.succeeded(); // declined: asked again at the next use
      this.#fail(
        live,
        `could not start: ${e.message}`,
        code,
        !authFailure && prepared,
        waitMs,
        (e as { code?: unknown }).code === 'SIGN_IN_REQUIRED',
      );
      throw e;
    }
    if (!live.wanted) {
      await closeBounded(conn, { ...DEFAULT_STOP, ...this.opts.stop });
      throw new Error(`Server "${live.name}" was stopped while starting.`);
    }
    live.conn = conn;
    live.authFailed = false;
    live.authWait?.succeeded();
    live.authSaid = undefined;
    await this.#verdicts.record(defHash, conn);
    this.events.emit('era', { server: live.name, era: conn.era, revision: conn.revision, negotiation: conn.negotiation, defHash });
    live.cache.clear();
    const since = this.#clock.now();
    this.#set(live, { status: 'running', era: conn.era, revision: conn.revision, since, startMs: since - startedAt });
    this.#log('info', `server "${live.name}" running (${conn.era} ${conn.revision} over ${conn.transportKind})`);
    return conn;
  }

  #crashed(live: Live, conn: Connection, reason: string): void {
    if (live.conn !== conn) return;
    live.conn = undefined;
    live.cache.clear();
    const st = live.state;
    if (st.status === 'running' && this.#clock.now() - st.since >= this.#policy.stableMs) live.attempts = 0;
    live.attempts++;
    for (const line of live.stderr.end()) this.events.emit('stderr', { server: live.name, line });
    this.#fail(live, reason, 'CRASHED');
  }

  /** What happens to a server that just crashed, in words (the error of the call it took down). */
  #nextWords(live: Live): string | undefined {
    const st = live.state;
    if (st.status === 'starting') return 'it is being restarted';
    if (st.status !== 'error') return undefined; // running again, or stopped
    if (st.nextRetryAt !== undefined)
      return `it will be restarted in ${Math.max(0, st.nextRetryAt - this.#clock.now())} ms (restart ${st.attempts} of at most ${this.#policy.maxAttempts})`;
    if (this.#policy.maxAttempts === 0)
      return 'it is not restarted: this host does not restart servers (a one-shot command such as parley call ends here; run it again to start the server anew)';
    return `it is not restarted: it failed ${st.attempts} time(s) in a row (start it again to retry)`;
  }

  /** `waitMs`: a start waiting for a sign-in (`../auth/sign-in-wait.ts`), logged once per user and server. */
  #fail(
    live: Live,
    message: string,
    code: 'START_FAILED' | 'START_TIMEOUT' | 'CRASHED',
    mayRetry = true,
    waitMs?: number,
    signInRequired = false,
  ): void {
    const retry = mayRetry && live.wanted && live.attempts < this.#policy.maxAttempts;
    const delay = backoffDelay(live.attempts, this.#policy);
    const nextRetryAt = retry ? this.#clock.now() + delay : undefined;
    this.#set(live, {
      status: 'error',
      message,
      code,
      attempts: live.attempts,
      ...(nextRetryAt !== undefined ? { nextRetryAt } : {}),
      ...(signInRequired ? { signInRequired: true as const } : {}),
    });
    if (waitMs !== undefined) {
      // One warning per user and server: the same failure after a back-off is logged at debug.
      const level = live.authSaid === message ? 'debug' : 'warn';
      live.authSaid = message;
      this.#log(level, `server "${live.name}": ${message}; tried again once a sign-in is stored for this user, or in ${waitMs} ms`);
      return;
    }
    this.#log('warn', `server "${live.name}": ${message}` + (retry ? `; restarting in ${delay} ms` : ''));
    if (!retry) return;
    live.retryTimer = this.#clock.setTimeout(() => {
      live.retryTimer = undefined;
      if (live.wanted) this.start(live.name).catch(() => {});
    }, delay);
  }

  #set(live: Live, state: ServerState): void {
    live.state = state;
    this.events.emit('state', { server: live.name, state });
  }

  #get(name: string): Live {
    const live = this.#live.get(name);
    if (!live) throw new UnknownServerError(name, this.names());
    return live;
  }
}

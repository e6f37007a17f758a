/**
 * `createHost`: the host runtime, where the seed's three layers meet. Static configuration defines the
 * servers; the root registry and routes decide which server sees which roots; the elicitation broker
 * completes every input request with a person (through the injected presenter), a preset or a
 * remembered answer, and the store keeps the audit log, answers, presets and roots.
 *
 * The host never imports UI: presenters are injected (`src/host/presenter.ts`).
 * @module
 */
import { randomUUID } from 'node:crypto';
import type {
  CallToolResult,
  GetPromptResult,
  Prompt,
  Resource,
  ResourceTemplateType as ResourceTemplate,
  ServerCapabilities,
  Tool,
} from '@modelcontextprotocol/client';
import { normalizeRootUri, type Content } from '../schema/index.js';
import { ElicitationBroker } from './broker/index.js';
import type { BrokerEvent } from './broker/index.js';
import { resolveInputVariables } from './config/inputs.js';
import { effectiveRootPolicy, isLazy, type HostConfig, type RootPolicyDef, type ServerDef } from './config/types.js';
import type { Presenter } from './presenter.js';
import { RootRegistry } from './roots/index.js';
import { feedDiscovery } from './roots/discovery.js';
import { QueryResultRoots } from './roots/query-results.js';
import type { AddRootOptions, RegisteredRoot, RootsChange } from './roots/index.js';
import { ServerManager } from './servers/index.js';
import type { RestartPolicy, ServerState } from './servers/index.js';
import type { AppendOptions, AuditQuery, AuditRecord, Preset, Scope, Store } from './store/types.js';
import { mergeAnswers, rememberedAnswers } from './store/presets-scene.js';
import { readResourceAsking } from './resources.js';
import type { ReadResourceResult } from '@modelcontextprotocol/client';
import { CallbackServer } from './auth/callback-server.js';
import { MemoryCredentialStore, type CredentialStore } from './auth/credential-store.js';
import { setHostInternals } from './internals.js';

/** Append option of audit rows nobody waits on (a call's `start`). */
const DEFER: AppendOptions = { defer: true };

export interface HostOptions {
  /** Shows input requests to a person (web console, terminal, scripted answers, headless). */
  presenter: Presenter;
  /** Audit log, remembered answers, presets and roots. Without it nothing is persisted. */
  store?: Store;
  /** Whose host this is. @default {tenant:'default', user:'default', session:<random uuid>} */
  scope?: Partial<Scope>;
  /** Client identity sent to servers. @default {name:'parley', version:'0.1.0'} */
  clientInfo?: { name: string; version: string };
  /** Diagnostics sink; never receives secrets. */
  log?: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
  /** Parent environment for stdio servers. @default process.env */
  env?: Record<string, string | undefined>;
  /** How servers are stopped, in ms: SIGTERM `graceMs` after stdin closes, SIGKILL `killAfterMs` later. @default DEFAULT_STOP (2000, 2000) */
  stop?: { graceMs?: number; killAfterMs?: number };
  /**
   * Restarts after a crash or failed start (`servers/backoff.ts`). `{ maxAttempts: 0 }`: never (a
   * one-shot command, whose process ends with the call; a crashed call's error then says so).
   * @default DEFAULT_RESTART_POLICY (500 ms doubling to 30 000 ms, at most 8 in a row)
   */
  restart?: Partial<RestartPolicy>;
  /**
   * Whether the audit row of a failed call keeps the server's stderr tail (with the server's configured
   * secrets and URL credentials redacted either way; `servers/client-text.ts`). The gateway passes
   * `gateway.showServerStderr`, since tenant admins read its audit log. @default true
   */
  auditStderr?: boolean;
  /**
   * Root health and routing settings over the configuration's `rootPolicy` (tests, embedders).
   * `healthIntervalMs` may be below parley.json's 1000 ms floor here. See {@link RootPolicyDef}.
   */
  rootPolicy?: RootPolicyDef & { watchDebounceMs?: number };
  /**
   * Where OAuth tokens and client registrations of protected HTTP servers are kept (per tenant and
   * user of `scope`). Without it they live in memory only, and every run signs in again (docs/auth.md).
   */
  credentials?: CredentialStore;
  /** Bound on one interactive sign-in, ms. @default 300000 (`AuthDefaults.signInTimeoutMs`) */
  signInTimeoutMs?: number;
  /** Bound on one request to an authorization server (until its body is read), ms. @default 30000 (`AuthDefaults.authFetchMs`) */
  authFetchMs?: number;
  /** Clock for token expiry (tests), epoch ms. @default Date.now */
  now?: () => number;
  /**
   * Folder for query-result roots (results handed from a producing server to consuming ones,
   * `roots/query-results.ts`); a `session-*` folder is made inside and removed by `close()`.
   * @default a new `parley-query-results-*` folder in the OS temp dir
   */
  queryResultsDir?: string;
}

/** Events for UIs: server states, stderr lines, pending prompts, roots changes, tool calls. */
export type HostEvent =
  | { type: 'server'; server: string; state: ServerState }
  | { type: 'stderr'; server: string; line: string }
  | { type: 'broker'; event: BrokerEvent }
  | { type: 'roots'; change: RootsChange }
  | { type: 'tool-call'; server: string; tool: string; phase: 'start' | 'end'; isError?: boolean; durationMs?: number }
  /** A server sent `notifications/{tools,resources,prompts}/list_changed` (its cached list was dropped). */
  | { type: 'list-changed'; server: string; kind: 'tools' | 'resources' | 'prompts' };

export interface ServerSummary {
  name: string;
  type: ServerDef['type'];
  state: ServerState;
  /** Negotiated revision and era once running. */
  revision?: string;
  era?: string;
  capabilities?: unknown;
  serverInfo?: unknown;
  /** Recent stderr lines (bounded ring). */
  stderr: string[];
  /** Starts on first use, not with {@link Host.start}'s default set (config `lazy`, see `isLazy`). */
  lazy: boolean;
}

/**
 * The host facade: everything a gateway, CLI or UI does with a host goes through these operations
 * (the server manager, broker and root registry behind them are not part of it). Server names are
 * the configuration's keys; an unknown name throws `UnknownServerError` (code `UNKNOWN_SERVER`).
 */
export interface Host {
  readonly config: HostConfig;
  readonly scope: Scope;
  /** Server names with state, revision, capabilities and recent stderr. */
  listServers(): ServerSummary[];
  /** The configured server names, in configuration order (no state; cheap). */
  serverNames(): string[];
  /**
   * Resolves once `name` runs, starting it if needed (lazy servers too), bounded by its
   * `startupTimeoutMs` (config; default `DEFAULT_TIMEOUTS.startupMs`).
   * @throws UnknownServerError, ServerUnavailableError (start failed, timed out, or given up after crashes)
   */
  ensureRunning(name: string): Promise<void>;
  /** Stops `name` (SIGTERM/SIGKILL bounds of {@link HostOptions.stop}) and starts it again. @throws as {@link ensureRunning} */
  restart(name: string): Promise<void>;
  /** Capabilities the server declared in `initialize` (spec: basic/lifecycle); `undefined` while it does not run. */
  capabilities(name: string): ServerCapabilities | undefined;
  /**
   * The server's tools (`tools/list`, every page), starting it lazily. Cached until the server's
   * `notifications/tools/list_changed`; `opts.fresh` drops the cached list first. Spec: server/tools.
   * @throws as {@link ensureRunning}; the server's error
   */
  listTools(server: string, opts?: { fresh?: boolean }): Promise<Tool[]>;
  /** The server's prompts (`prompts/list`), cached like {@link listTools}. Spec: server/prompts. */
  listPrompts(server: string, opts?: { fresh?: boolean }): Promise<Prompt[]>;
  /** The server's resources (`resources/list`), cached until `resources/list_changed`. Spec: server/resources. */
  listResources(server: string): Promise<Resource[]>;
  /** The server's resource templates (`resources/templates/list`), cached like {@link listResources}. */
  listResourceTemplates(server: string): Promise<ResourceTemplate[]>;
  /**
   * Gets a prompt (`prompts/get`), starting the server lazily. Audited like tool calls: a
   * `prompt-get` row `start`, then `ok` (with `durationMs`) or `failed` (with the error message);
   * the arguments are not recorded. Spec: server/prompts.
   * @throws as {@link ensureRunning}; the server's error (e.g. -32602 for an unknown prompt)
   */
  getPrompt(server: string, name: string, args?: Record<string, string>, opts?: { signal?: AbortSignal }): Promise<GetPromptResult>;
  /** The roots the host offers (copies), optionally filtered. Spec: client/roots. */
  listRoots(filter?: { lifetime?: RegisteredRoot['lifetime']; source?: RegisteredRoot['source']; virtual?: boolean }): RegisteredRoot[];
  /** The root registered under `uri` (any spelling of it), if any. */
  getRoot(uri: string): RegisteredRoot | undefined;
  /**
   * Adds a root (or updates its name, lifetime, source) and tells the servers it routes to
   * (`notifications/roots/list_changed` on 2025 eras). Its health is checked on the registry's
   * schedule; use {@link addRootChecked} to check it first.
   * @throws UriError for a URI without a scheme or a malformed one
   */
  addRoot(uri: string, opts?: AddRootOptions): RegisteredRoot;
  /** {@link addRoot}, then one health check (bounded, 2000 ms) before it resolves. @throws UriError */
  addRootChecked(uri: string, opts?: AddRootOptions): Promise<RegisteredRoot>;
  /** Removes a root (any spelling of its URI); returns whether it existed. */
  removeRoot(uri: string): boolean;
  /**
   * Starts the named servers (default: the eager ones, i.e. every server that is not lazy) in
   * parallel; resolves when each has started or failed. Lazy servers start on first use.
   */
  start(names?: string[]): Promise<Array<{ name: string; ok: boolean; error?: Error }>>;
  /** Whether `name` is lazy (starts on first use). @throws UnknownServerError */
  isLazy(name: string): boolean;
  /** Resolves when the discovery started so far (templates of servers that just started) is in the router. */
  discovered(): Promise<void>;
  /**
   * Calls a tool, starting its server lazily. The tool-call clock pauses while a person answers.
   * `opts.tag` is an opaque label that prompts of this call carry in `InputRequestView.call.tag` when the
   * runtime can attribute them (`servers/calls.ts`); a gateway puts its upstream session id there.
   * @throws UnknownServerError, ServerUnavailableError, ToolCallTimeoutError
   */
  callTool(
    server: string,
    tool: string,
    args?: Record<string, unknown>,
    opts?: { signal?: AbortSignal; tag?: string },
  ): Promise<CallToolResult>;
  /**
   * Reads a resource, starting the server lazily. When the server does not find `uri` and it is one of
   * the server's resource templates with variables left out, the missing variables are asked of a
   * person (a form through the broker, completions as options) and the completed URI is read
   * (`./resources.ts`, essay §3.2). Audited like tool calls: a `resource-read` row `start`, then `ok`
   * (with `durationMs`) or `failed`. Spec: server/resources.
   * @throws ResourceElicitationDeclinedError (person declined/cancelled), the server's error otherwise
   */
  readResource(server: string, uri: string, opts?: { signal?: AbortSignal }): Promise<ReadResourceResult>;
  /** Servers routed to `uri` (static routes, then discovery); starts statically routed ones lazily. */
  serversFor(uri: string): Promise<string[]>;
  /**
   * An error message of `server` as a client may see it (a gateway's client: a model, another person's
   * agent): the values of the server's `env`/`headers` and URL credentials as `[redacted]`, and the
   * quoted stderr tail of a failed start or crash withheld unless `opts.stderr`
   * (`servers/client-text.ts`). The person running parley keeps the whole message.
   */
  clientText(server: string, text: string, opts?: { stderr?: boolean }): string;
  /**
   * Presets ("scenes": roots, answers and configuration). Stored at user scope (session `null`), so a
   * preset saved by one process loads in another of the same tenant and user.
   */
  readonly presets: {
    /** The user's saved presets, by name. */
    list(): Promise<Preset[]>;
    /**
     * Saves the current roots (user-added, virtual ones too) and answers as a named scene. Answers, when
     * `body.answers` is not given: the active preset's, then the remembered answers this session can
     * recall, then the answers accepted in this process (sensitive fields never), merged per server.
     */
    save(name: string, body?: { answers?: Record<string, Content>; config?: Record<string, Record<string, unknown>> }): Promise<Preset>;
    /**
     * Loads a preset: its roots are added (session lifetime, health-checked) and its answers prefill forms
     * (a non-interactive presenter with `autoSubmitPrefill` sends a complete prefill without asking).
     * Loading another preset later removes the roots the previous one added, unless the new one has them
     * too; roots that were there before a preset loaded are never removed.
     * @throws PresetNotFoundError for an unknown name (saved or from the configuration).
     */
    load(name: string): Promise<Preset>;
    /**
     * Unloads the active preset: the roots it added leave the session again (as when another scene
     * loads: a root the person has since made theirs, or that was there before, stays) and its answers
     * no longer prefill forms. Answers already sent and answers remembered stay. Audited (`preset`,
     * `unload`). @returns the unloaded preset's name (`undefined` when none was loaded) and the roots removed.
     */
    unload(): Promise<{ name?: string; removedRoots: string[] }>;
    /** The active preset's name, if any. */
    active(): string | undefined;
  };
  readonly audit: { query(q?: AuditQuery): Promise<AuditRecord[]> };
  /** Subscribes to host events; returns the unsubscribe function. */
  on(listener: (e: HostEvent) => void): () => void;
  /**
   * Stops every server (bounded), waits for the host's pending store writes (audit rows, roots) and
   * closes the root registry. The store stays open (the caller owns it).
   */
  close(): Promise<void>;
}

/** Thrown by `presets.load` for an unknown name. */
export class PresetNotFoundError extends Error {
  override readonly name = 'PresetNotFoundError';
}

/** Builds a host from loaded configuration. Nothing starts until `start`, `callTool` or a route asks. */
export function createHost(config: HostConfig, opts: HostOptions): Host {
  const scope: Scope = { tenant: 'default', user: 'default', session: randomUUID(), ...opts.scope };
  const listeners = new Set<(e: HostEvent) => void>();
  const emit = (e: HostEvent) => {
    for (const l of listeners) {
      try {
        l(e);
      } catch (err) {
        opts.log?.('warn', `host event listener threw: ${String(err)}`);
      }
    }
  };
  let activePreset: Preset | undefined;
  /** Roots the active scene added (they were not there before it loaded): they leave when another scene loads. */
  let sceneRoots = new Set<string>();
  const userScope: Scope = { ...scope, session: null };

  const given = Object.fromEntries(Object.entries(opts.rootPolicy ?? {}).filter(([, v]) => v !== undefined)) as RootPolicyDef;
  const rootPolicy = { ...effectiveRootPolicy(config), ...given };
  const roots = new RootRegistry({
    store: opts.store,
    scope: { ...scope, session: null },
    routes: config.routes,
    defaultRootsToAll: rootPolicy.unrouted === 'all',
    healthIntervalMs: rootPolicy.healthIntervalMs,
    onStoreError: (e) => opts.log?.('error', `roots store write failed: ${String(e)}`),
    ...(opts.rootPolicy?.watchDebounceMs !== undefined ? { watchDebounceMs: opts.rootPolicy.watchDebounceMs } : {}),
  });
  for (const r of config.roots) roots.add(r.uri, { name: r.name, lifetime: 'app', source: 'config' });
  // Live root health (§5.3): checked now (a server's first roots/list waits for this, bounded by the
  // 2000 ms check bound), then on a schedule and on file-system events.
  const firstCheck = roots.check().then(
    () => undefined,
    () => undefined,
  );
  roots.startHealthChecks({ watch: rootPolicy.watch });
  // Roots another process adds to or removes from the same store (parley roots add in another terminal).
  roots.startStoreSync(rootPolicy.storePollMs);

  const broker = new ElicitationBroker({
    presenter: opts.presenter,
    store: opts.store,
    policy: config.policy,
    scope,
    sources: () => ({ profile: config.profile, presetAnswers: activePreset?.answers ?? {} }),
  });
  broker.on((event) => emit({ type: 'broker', event }));

  const inputCache = new Map<string, string>();
  const callback = new CallbackServer();
  const servers = new ServerManager(config.servers, {
    auth: {
      store: opts.credentials ?? new MemoryCredentialStore(),
      callback,
      presenter: opts.presenter,
      scope: { tenant: scope.tenant, user: scope.user },
      allowLoopbackUrls: config.policy.allowLoopbackUrls === true,
      ...(opts.signInTimeoutMs !== undefined ? { signInTimeoutMs: opts.signInTimeoutMs } : {}),
      ...(opts.authFetchMs !== undefined ? { authFetchMs: opts.authFetchMs } : {}),
      ...(opts.now ? { now: opts.now } : {}),
      ...(opts.log ? { log: opts.log } : {}),
    },
    clientInfo: opts.clientInfo ?? { name: 'parley', version: '0.1.0' },
    // Era verdicts outlive the process when there is a store (no sibling probe on the next start).
    ...(opts.store?.getEraVerdict ? { eraVerdicts: opts.store } : {}),
    env: opts.env,
    log: opts.log,
    ...(opts.stop ? { stop: opts.stop } : {}),
    ...(opts.restart ? { restart: opts.restart } : {}),
    handlers: {
      elicit: (params, ctx) => broker.elicit(params as never, { ...ctx, scope }),
      sample: (params, ctx) => broker.sample(params, { ...ctx, scope }),
      listRoots: async (ctx) => {
        await firstCheck;
        return { roots: roots.rootsForServer(ctx.server) };
      },
      elicitationComplete: (server, id) => broker.elicitationComplete(server, id),
      malformedMessage: (server, detail, count) => broker.malformedMessage(server, detail, count),
      // A host decision, through the presenter seam; headless presenters have no `decide`.
      decideUrlRetry: (decision, signal) =>
        opts.presenter.interactive && opts.presenter.decide ? opts.presenter.decide(decision, signal) : undefined,
    },
    prepare: (def) =>
      def.inputRefs?.length
        ? resolveInputVariables(def, config.inputs, (input) => broker.askInput(def.name, input), inputCache)
        : Promise.resolve(def),
  });
  servers.events.on('state', (e: { server: string; state: ServerState }) => emit({ type: 'server', server: e.server, state: e.state }));
  servers.events.on('listChanged', (e: { server: string; kind: 'tools' | 'resources' | 'prompts' }) =>
    emit({ type: 'list-changed', server: e.server, kind: e.kind }),
  );
  const discovered = feedDiscovery(roots, servers, opts.log);
  const queryResults = new QueryResultRoots(
    {
      roots,
      // Known once connected (a consumer asks roots/list while it starts, before it is 'running').
      capabilities: (name) => servers.info(name)?.serverCapabilities,
      ensureRunning: async (name) => void (await servers.ensureRunning(name)),
      announced: async () => void (await Promise.all([...notifying])),
      names: () => servers.names(),
      readResource: (server, uri, signal) =>
        new Promise((resolve, reject) => {
          const onAbort = () => reject(new Error(`no answer within the bound (${String(signal.reason ?? 'timeout')})`));
          signal.addEventListener('abort', onAbort, { once: true });
          servers
            .readResource(server, uri)
            .then(resolve, reject)
            .finally(() => signal.removeEventListener('abort', onAbort));
        }),
      log: opts.log,
    },
    { dir: opts.queryResultsDir },
  );
  const lazy = (name: string) => isLazy(config, config.servers[name] ?? { name });
  servers.events.on('stderr', (e: { server: string; line: string }) => emit({ type: 'stderr', server: e.server, line: e.line }));

  // list_changed notifications in flight: a query-result root is announced before the call that made it returns.
  const notifying = new Set<Promise<unknown>>();
  roots.on('change', (change) => {
    emit({ type: 'roots', change });
    for (const s of change.servers) {
      if (servers.state(s).status === 'running') {
        const p: Promise<unknown> = servers
          .sendRootsListChanged(s)
          .catch((e) => opts.log?.('warn', `roots list_changed to ${s} failed: ${String(e)}`))
          .finally(() => notifying.delete(p));
        notifying.add(p);
      }
    }
  });

  // Host-level audit rows (tool calls, presets) are written without blocking the call; close() waits for them.
  const writes = new Set<Promise<unknown>>();
  // A call's rows (`start`, then `ok`/`error`/`failed`) are deferred: they commit with the next answer's
  // rows or in a batch within 50 ms, so calls cost no commit each (docs/store.md "Deferred rows").
  const audit = (rec: Omit<AuditRecord, 'ts' | 'scope'>, o?: AppendOptions) => {
    if (!opts.store) return;
    const w = opts.store
      .appendAudit({ ts: Date.now(), scope, ...rec }, o)
      .catch((e: unknown) => opts.log?.('error', `audit write failed: ${String(e)}`))
      .finally(() => writes.delete(w));
    writes.add(w);
  };
  /** Runs `run` between a `start` row and an `ok`/`failed` row of `kind` (as tool calls are audited). */
  // The audit log is stored (and read by tenant admins over the gateway): an error never keeps the
  // values of the server's env/headers or URL credentials, and keeps its stderr tail only with
  // `auditStderr` (servers/client-text.ts).
  const auditStderr = opts.auditStderr ?? true;
  const auditedError = (server: string, e: unknown) =>
    servers.clientText(server, (e as Error)?.message ?? String(e), { stderr: auditStderr });
  const audited = async <T>(server: string, kind: string, detail: Record<string, unknown>, run: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    audit({ server, kind, action: 'start', detail }, DEFER);
    try {
      const result = await run();
      audit({ server, kind, action: 'ok', durationMs: Date.now() - started, detail }, DEFER);
      return result;
    } catch (e) {
      audit(
        { server, kind, action: 'failed', durationMs: Date.now() - started, detail: { ...detail, error: auditedError(server, e) } },
        DEFER,
      );
      throw e;
    }
  };

  const host: Host = {
    config,
    scope,
    listServers: () =>
      servers.names().map((name) => {
        const info = servers.info(name);
        return {
          name,
          type: config.servers[name].type,
          state: servers.state(name),
          revision: info?.negotiatedRevision,
          era: info?.era,
          capabilities: info?.serverCapabilities,
          serverInfo: info?.serverInfo,
          stderr: servers.stderr(name),
          lazy: lazy(name),
        };
      }),
    start: async (names) => {
      await roots.ready; // servers ask roots/list as soon as they start
      return servers.startMany(names ?? servers.names().filter((n) => !lazy(n)));
    },
    serverNames: () => servers.names(),
    ensureRunning: async (name) => void (await servers.ensureRunning(name)),
    async restart(name) {
      await servers.stop(name);
      await servers.start(name);
    },
    capabilities: (name) => servers.info(name)?.serverCapabilities,
    listTools: async (server, o) => (await servers.listTools(server, o)).tools,
    listPrompts: async (server, o) => (await servers.listPrompts(server, o)).prompts,
    listResources: async (server) => (await servers.listResources(server)).resources,
    listResourceTemplates: async (server) => (await servers.listResourceTemplates(server)).resourceTemplates,
    getPrompt: (server, name, args, o = {}) =>
      audited(server, 'prompt-get', { prompt: name }, () => servers.getPrompt(server, name, args, o)),
    listRoots: (filter) => roots.list(filter),
    getRoot: (uri) => roots.get(uri),
    addRoot: (uri, o) => roots.add(uri, o),
    addRootChecked: (uri, o) => roots.addChecked(uri, o),
    removeRoot: (uri) => roots.remove(uri),
    isLazy(name) {
      servers.state(name); // throws UnknownServerError for a name that is not configured
      return lazy(name);
    },
    discovered,
    async callTool(server, tool, args = {}, o = {}) {
      const started = Date.now();
      emit({ type: 'tool-call', server, tool, phase: 'start' });
      audit({ server, kind: 'tool-call', action: 'start', detail: { tool } }, DEFER);
      try {
        // Query-result roots (roots/query-results.ts): a result URI argument to a consumer is handed over
        // first; a producer's linked results become roots for the consumers.
        await queryResults.beforeCall(server, args);
        const result = await servers.callTool(server, tool, args, o);
        await queryResults.afterCall(server, result);
        const durationMs = Date.now() - started;
        emit({ type: 'tool-call', server, tool, phase: 'end', isError: result.isError === true, durationMs });
        audit({ server, kind: 'tool-call', action: result.isError ? 'error' : 'ok', durationMs, detail: { tool } }, DEFER);
        return result;
      } catch (e) {
        const durationMs = Date.now() - started;
        emit({ type: 'tool-call', server, tool, phase: 'end', isError: true, durationMs });
        audit({ server, kind: 'tool-call', action: 'failed', durationMs, detail: { tool, error: auditedError(server, e) } }, DEFER);
        throw e;
      }
    },
    readResource: (server, uri, o) =>
      audited(server, 'resource-read', { uri }, () => readResourceAsking({ servers, broker, audit }, server, uri, o)),
    clientText: (server, text, o) => servers.clientText(server, text, o),
    async serversFor(uri) {
      const names = roots.serversFor(uri).filter((n) => n in config.servers);
      await servers.startMany(names.filter((n) => servers.state(n).status !== 'running'));
      return names;
    },
    presets: {
      list: async () => (opts.store ? opts.store.listPresets(userScope) : []),
      async save(name, body = {}) {
        await roots.ready;
        // Virtual roots (postgres://…, chart://…) are part of the scene too; they stay host-side.
        const answers =
          body.answers ?? mergeAnswers(activePreset?.answers, await rememberedAnswers(opts.store, scope), broker.recentAnswers(scope));
        const preset: Preset = {
          name,
          scope: userScope,
          roots: roots
            .list()
            .filter((r) => r.source !== 'config' && !r.audience)
            .map((r) => ({ uri: r.uri, ...(r.name ? { name: r.name } : {}) })),
          answers,
          config: body.config ?? activePreset?.config ?? {},
          updatedAt: Date.now(),
        };
        await opts.store?.savePreset(preset);
        audit({ server: '*', kind: 'preset', action: 'save', detail: { name, servers: Object.keys(answers) } });
        return preset;
      },
      async load(name) {
        const fromConfig = config.presets[name];
        // User scope first; then the session's own (presets saved by an older parley under the session id).
        const preset: Preset | undefined =
          (await opts.store?.loadPreset(userScope, name)) ??
          (await opts.store?.loadPreset(scope, name)) ??
          (fromConfig
            ? {
                name,
                scope: userScope,
                roots: fromConfig.roots ?? [],
                answers: (fromConfig.answers ?? {}) as Record<string, Content>,
                config: {},
                updatedAt: 0,
              }
            : undefined);
        if (!preset)
          throw new PresetNotFoundError(
            `no preset named "${name}" (saved: ${[...(opts.store ? await opts.store.listPresets(userScope) : []).map((p) => p.name), ...Object.keys(config.presets)].join(', ') || 'none'})`,
          );
        await roots.ready;
        const keyOf = (uri: string) => {
          try {
            return normalizeRootUri(uri);
          } catch {
            return uri; // an unusable URI is refused by addChecked() below, with its reason
          }
        };
        const wanted = new Set(preset.roots.map((r) => keyOf(r.uri)));
        // Switching scenes: the roots the previous scene added leave with it (servers stop seeing them),
        // unless this scene has them too or the person has since made one theirs (another scope or source).
        for (const uri of sceneRoots) {
          const r = roots.get(uri);
          if (!wanted.has(uri) && r?.lifetime === 'session' && r.source === 'user') roots.remove(uri);
        }
        sceneRoots = new Set([...sceneRoots].filter((uri) => wanted.has(uri) && roots.get(uri)));
        // A scene adds its roots for this session, health-checked before servers see them; a root the
        // person already has keeps its own lifetime (re-adding it as a session root would drop its stored
        // row: loading a scene must lose nothing).
        const have = new Set(roots.list().map((r) => r.uri));
        const added: string[] = [];
        for (const r of preset.roots) {
          const key = keyOf(r.uri);
          if (have.has(key)) continue;
          roots.add(r.uri, { name: r.name, lifetime: 'session', source: 'user' });
          have.add(key);
          sceneRoots.add(key);
          added.push(key);
        }
        await Promise.all(added.map((uri) => roots.check(uri))); // each bounded at 2000 ms, at once
        activePreset = preset;
        audit({ server: '*', kind: 'preset', action: 'load', detail: { name } });
        return preset;
      },
      async unload() {
        await roots.ready;
        const name = activePreset?.name;
        const removedRoots: string[] = [];
        for (const uri of sceneRoots) {
          const r = roots.get(uri);
          if (r?.lifetime === 'session' && r.source === 'user' && roots.remove(uri)) removedRoots.push(uri);
        }
        sceneRoots = new Set();
        activePreset = undefined;
        if (name !== undefined) audit({ server: '*', kind: 'preset', action: 'unload', detail: { name, removedRoots } });
        return name === undefined ? { removedRoots } : { name, removedRoots };
      },
      active: () => activePreset?.name,
    },
    audit: { query: async (q) => (opts.store ? opts.store.queryAudit(q) : []) },
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      broker.close(); // prompts still waiting are answered cancel
      await servers.stopAll();
      await callback.close();
      await Promise.all([...writes, roots.ready, roots.flush()]);
      queryResults.close();
      roots.close();
    },
  };
  setHostInternals(host, { servers, broker, roots });
  return host;
}

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
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { Content, RequestedSchema } from '../schema/index.js';
import { ElicitationBroker } from './broker/index.js';
import type { BrokerEvent } from './broker/index.js';
import { resolveInputs } from './config/inputs.js';
import type { HostConfig, InputDef, ServerDef } from './config/types.js';
import type { Presenter } from './presenter.js';
import { RootRegistry } from './roots/index.js';
import type { RootsChange } from './roots/index.js';
import { ServerManager } from './servers/index.js';
import type { ServerState } from './servers/index.js';
import type { AuditQuery, AuditRecord, Preset, Scope, Store } from './store/types.js';

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
}

/** Events for UIs: server states, stderr lines, pending prompts, roots changes, tool calls. */
export type HostEvent =
  | { type: 'server'; server: string; state: ServerState }
  | { type: 'stderr'; server: string; line: string }
  | { type: 'broker'; event: BrokerEvent }
  | { type: 'roots'; change: RootsChange }
  | { type: 'tool-call'; server: string; tool: string; phase: 'start' | 'end'; isError?: boolean; durationMs?: number };

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
}

export interface Host {
  readonly config: HostConfig;
  readonly scope: Scope;
  readonly servers: ServerManager;
  readonly broker: ElicitationBroker;
  readonly roots: RootRegistry;
  /** Server names with state, revision, capabilities and recent stderr. */
  listServers(): ServerSummary[];
  /** Starts the named servers (default: all) in parallel; resolves when each has started or failed. */
  start(names?: string[]): Promise<Array<{ name: string; ok: boolean; error?: Error }>>;
  /**
   * Calls a tool, starting its server lazily. The tool-call clock pauses while a person answers.
   * `opts.tag` is an opaque label that prompts of this call carry in `PromptView.call.tag` when the
   * runtime can attribute them (`servers/calls.ts`); a gateway puts its upstream session id there.
   * @throws UnknownServerError, ServerUnavailableError, ToolCallTimeoutError
   */
  callTool(server: string, tool: string, args?: Record<string, unknown>, opts?: { signal?: AbortSignal; tag?: string }): Promise<CallToolResult>;
  /** Servers routed to `uri` (static routes, then discovery); starts statically routed ones lazily. */
  serversFor(uri: string): Promise<string[]>;
  readonly presets: {
    list(): Preset[];
    /** Saves the current roots and the given answers/config as a named snapshot. */
    save(name: string, body?: { answers?: Record<string, Content>; config?: Record<string, Record<string, unknown>> }): Preset;
    /** Loads a preset: its roots are added (session scope) and its answers become prefill. */
    load(name: string): Preset;
    /** The active preset's name, if any. */
    active(): string | undefined;
  };
  readonly audit: { query(q?: AuditQuery): AuditRecord[] };
  /** Subscribes to host events; returns the unsubscribe function. */
  on(listener: (e: HostEvent) => void): () => void;
  /** Stops every server (bounded) and closes the root registry. The store stays open (the caller owns it). */
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

  const roots = new RootRegistry({ store: opts.store, scope: { ...scope, session: null }, routes: config.routes });
  for (const r of config.roots) roots.add(r.uri, { name: r.name, lifetime: 'app', source: 'config' });

  const broker = new ElicitationBroker({
    presenter: opts.presenter,
    store: opts.store,
    policy: config.policy,
    scope,
    sources: () => ({ profile: config.profile, presetAnswers: activePreset?.answers ?? {} }),
  });
  broker.on((event) => emit({ type: 'broker', event }));

  const inputCache = new Map<string, string>();
  const servers = new ServerManager(config.servers, {
    clientInfo: opts.clientInfo ?? { name: 'parley', version: '0.1.0' },
    // Era verdicts outlive the process when there is a store (no sibling probe on the next start).
    ...(opts.store?.getEraVerdict ? { eraVerdicts: opts.store } : {}),
    env: opts.env,
    log: opts.log,
    handlers: {
      elicit: (params, ctx) => broker.elicit(params as never, { ...ctx, scope }),
      listRoots: async (ctx) => ({ roots: roots.rootsForServer(ctx.server) }),
      elicitationComplete: (server, id) => broker.elicitationComplete(server, id),
      // A host decision, through the presenter seam; headless presenters have no `decide`.
      decideUrlRetry: (decision, signal) => (opts.presenter.interactive && opts.presenter.decide ? opts.presenter.decide(decision, signal) : undefined),
    },
    prepare: (def) => (def.inputRefs?.length ? resolveInputs(def, config.inputs, (input) => askInput(opts.presenter, def.name, input), inputCache) : Promise.resolve(def)),
  });
  servers.events.on('state', (e: { server: string; state: ServerState }) => emit({ type: 'server', server: e.server, state: e.state }));
  servers.events.on('stderr', (e: { server: string; line: string }) => emit({ type: 'stderr', server: e.server, line: e.line }));

  roots.on('change', (change) => {
    emit({ type: 'roots', change });
    for (const s of change.servers) {
      if (servers.state(s).status === 'running') void servers.sendRootsListChanged(s).catch((e) => opts.log?.('warn', `roots list_changed to ${s} failed: ${String(e)}`));
    }
  });

  const audit = (rec: Omit<AuditRecord, 'ts' | 'scope'>) => {
    try {
      opts.store?.appendAudit({ ts: Date.now(), scope, ...rec });
    } catch (e) {
      opts.log?.('error', `audit write failed: ${String(e)}`);
    }
  };

  const host: Host = {
    config,
    scope,
    servers,
    broker,
    roots,
    listServers: () =>
      servers.names().map((name) => {
        const info = servers.info(name);
        return { name, type: config.servers[name].type, state: servers.state(name), revision: info?.negotiatedRevision, era: info?.era, capabilities: info?.serverCapabilities, serverInfo: info?.serverInfo, stderr: servers.stderr(name) };
      }),
    start: (names) => servers.startMany(names ?? servers.names()),
    async callTool(server, tool, args = {}, o = {}) {
      const started = Date.now();
      emit({ type: 'tool-call', server, tool, phase: 'start' });
      audit({ server, kind: 'tool-call', action: 'start', detail: { tool } });
      try {
        const result = await servers.callTool(server, tool, args, o);
        const durationMs = Date.now() - started;
        emit({ type: 'tool-call', server, tool, phase: 'end', isError: result.isError === true, durationMs });
        audit({ server, kind: 'tool-call', action: result.isError ? 'error' : 'ok', durationMs, detail: { tool } });
        return result;
      } catch (e) {
        const durationMs = Date.now() - started;
        emit({ type: 'tool-call', server, tool, phase: 'end', isError: true, durationMs });
        audit({ server, kind: 'tool-call', action: 'failed', durationMs, detail: { tool, error: (e as Error).message } });
        throw e;
      }
    },
    async serversFor(uri) {
      const names = roots.serversFor(uri).filter((n) => n in config.servers);
      await servers.startMany(names.filter((n) => servers.state(n).status !== 'running'));
      return names;
    },
    presets: {
      list: () => (opts.store ? opts.store.listPresets(scope) : []),
      save(name, body = {}) {
        const preset: Preset = { name, scope, roots: roots.list({ virtual: false }).filter((r) => r.source !== 'config').map((r) => ({ uri: r.uri, ...(r.name ? { name: r.name } : {}) })), answers: body.answers ?? {}, config: body.config ?? {}, updatedAt: Date.now() };
        opts.store?.savePreset(preset);
        audit({ server: '*', kind: 'preset', action: 'save', detail: { name } });
        return preset;
      },
      load(name) {
        const fromConfig = config.presets[name];
        const preset: Preset | undefined = opts.store?.loadPreset(scope, name) ?? (fromConfig ? { name, scope, roots: fromConfig.roots ?? [], answers: (fromConfig.answers ?? {}) as Record<string, Content>, config: {}, updatedAt: 0 } : undefined);
        if (!preset) throw new PresetNotFoundError(`no preset named "${name}" (saved: ${[...(opts.store?.listPresets(scope) ?? []).map((p) => p.name), ...Object.keys(config.presets)].join(', ') || 'none'})`);
        for (const r of preset.roots) roots.add(r.uri, { name: r.name, lifetime: 'session', source: 'user' });
        activePreset = preset;
        audit({ server: '*', kind: 'preset', action: 'load', detail: { name } });
        return preset;
      },
      active: () => activePreset?.name,
    },
    audit: { query: (q) => opts.store?.queryAudit(q) ?? [] },
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      await servers.stopAll();
      roots.close();
    },
  };
  return host;
}

/**
 * Asks one `${input:id}` value through the presenter, as a one-field form. Password inputs are
 * marked sensitive (masked, never remembered); the value lives only in the host's memory.
 */
async function askInput(presenter: Presenter, server: string, input: InputDef): Promise<string | undefined> {
  const field: Record<string, unknown> = { type: 'string', title: input.id, ...(input.description ? { description: input.description } : {}) };
  if (input.type === 'pickString' && input.options?.length) field.enum = input.options;
  const schema = { type: 'object', properties: { value: field }, required: ['value'] } as unknown as RequestedSchema;
  const answer = await presenter.present(
    {
      id: `input-${input.id}-${randomUUID()}`,
      server,
      message: input.description ?? `Server "${server}" needs a value for "${input.id}" to start.`,
      mode: 'form',
      schema,
      prefill: input.default !== undefined ? { value: input.default } : {},
      prefillSources: input.default !== undefined ? { value: 'default' } : {},
      repairs: [],
      lint: [],
      warnings: [],
      sensitiveFields: input.password ? ['value'] : [],
      round: 1,
    },
    new AbortController().signal,
  );
  if (answer.action !== 'accept') return undefined;
  const v = answer.content?.value;
  return typeof v === 'string' ? v : undefined;
}

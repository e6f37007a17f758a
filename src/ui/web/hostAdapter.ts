/**
 * Adapts the host runtime (`createHost`) to the console's narrow {@link HostApi}. Lives in the UI
 * layer so the host core never learns about the console.
 * @module
 */
import { pathToFileURL } from 'node:url';
import { exportPresets } from '../../host/store/index.js';
import { PresetNotFoundError } from '../../host/index.js';
import type { Host, Store } from '../../host/index.js';
import type { ServerState as HostServerState } from '../../host/index.js';
import {
  HostApiError,
  type HostApi,
  type HostEvent,
  type PresetInfo,
  type ServerInfo,
  type ServerState,
  type ToolInfo,
} from './hostApi.js';

/**
 * Shortest interval between two `audit` events, and between two `servers` events of one server, of one
 * subscription ({@link HostApi.subscribe}), ms: a server's burst of requests or stderr lines becomes one
 * reload of that panel of each open page per interval.
 */
export const EVENT_INTERVAL_MS = 250;

function stateOf(s: HostServerState): { state: ServerState; error?: string } {
  switch (s.status) {
    case 'running':
      return { state: 'ready' };
    case 'starting':
      return { state: s.attempt > 1 ? 'restarting' : 'starting' };
    case 'error':
      return { state: 'failed', error: s.message };
    default:
      return { state: 'stopped' };
  }
}

/** Accepts a `file://` URI, any other URI (a virtual root) or a local path. */
function toRootUri(input: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(input)) return input;
  if (input.startsWith('/') || /^[A-Za-z]:[\\/]/.test(input)) return pathToFileURL(input).href;
  throw new HostApiError(`"${input}" is neither a URI nor an absolute path; give file:///… or /absolute/path`);
}

/** The console's view of `host`. `store` is needed for preset export. */
export function hostApiFor(host: Host, store?: Store): HostApi {
  return {
    listServers: (): ServerInfo[] =>
      host.listServers().map((s) => ({
        name: s.name,
        ...stateOf(s.state),
        revision: s.revision,
        capabilities: s.capabilities as Record<string, unknown> | undefined,
        stderr: s.stderr.slice(-50),
        transport: s.type,
        lazy: s.lazy,
      })),
    restartServer: (name) => host.restart(name),
    async listTools(): Promise<ToolInfo[]> {
      const out: ToolInfo[] = [];
      for (const s of host.listServers()) {
        if (s.state.status !== 'running') continue;
        try {
          const tools = await host.listTools(s.name);
          for (const t of tools)
            out.push({
              server: s.name,
              name: t.name,
              title: t.title,
              description: t.description,
              inputSchema: t.inputSchema as Record<string, unknown>,
            });
        } catch {
          // a server that fails to list is shown by its state; its tools are left out
        }
      }
      return out;
    },
    callTool: (server, tool, args) => host.callTool(server, tool, args) as never,
    listRoots: () => host.listRoots().map((r) => ({ uri: r.uri, name: r.name, lifetime: r.lifetime, source: r.source, health: r.health })),
    async addRoot(root) {
      const r = await host.addRootChecked(toRootUri(root.uri), { name: root.name, lifetime: root.lifetime ?? 'session', source: 'user' });
      return { uri: r.uri, name: r.name, lifetime: r.lifetime, source: r.source, health: r.health };
    },
    removeRoot: (uri) => host.removeRoot(uri),
    listPresets: async () => {
      const stored: PresetInfo[] = (await host.presets.list()).map((p) => ({
        name: p.name,
        updatedAt: p.updatedAt,
        roots: p.roots.length,
        servers: Object.keys(p.answers),
        source: 'store',
      }));
      // The configuration's presets load too (a saved one of the same name wins, as in host.presets.load).
      const saved = new Set(stored.map((p) => p.name));
      const fromConfig: PresetInfo[] = Object.entries(host.config.presets)
        .filter(([name]) => !saved.has(name))
        .map(([name, p]) => ({ name, updatedAt: 0, roots: p.roots?.length ?? 0, servers: Object.keys(p.answers ?? {}), source: 'config' }));
      const active = host.presets.active();
      return [...stored, ...fromConfig].map((p) => (p.name === active ? { ...p, active: true } : p));
    },
    savePreset: async (name) => void (await host.presets.save(name)),
    async loadPreset(name) {
      try {
        const preset = await host.presets.load(name);
        return { answers: preset.answers as Record<string, Record<string, unknown>> };
      } catch (e) {
        if (e instanceof PresetNotFoundError) throw new HostApiError(e.message, 'NOT_FOUND');
        throw e;
      }
    },
    unloadPreset: () => host.presets.unload(),
    exportPresets: () => (store ? exportPresets(store, { ...host.scope, session: null }) : JSON.stringify({ presets: [] })),
    listAnswers: async () =>
      ((await store?.listAnswers?.(host.scope)) ?? []).map((a) => ({
        server: a.server,
        schemaHash: a.schemaHash,
        ...(a.label ? { label: a.label } : {}),
        content: a.content as Record<string, unknown>,
        remember: a.remember === 'session' ? ('session' as const) : ('always' as const),
        auto: a.auto,
        updatedAt: a.updatedAt,
      })),
    async setAnswerMode(server, schemaHash, auto) {
      if (!store?.setAnswerMode) throw new HostApiError('This store cannot change remembered answers.');
      if (!(await store.setAnswerMode(host.scope, server, schemaHash, auto)))
        throw new HostApiError(`No remembered answer of ${server} for form ${schemaHash}.`, 'NOT_FOUND');
    },
    forgetAnswer: async (server, schemaHash) => (await store?.forgetAnswer?.(host.scope, server, schemaHash)) ?? false,
    // Only what this console's user may see: the host's own tenant and user (all of its sessions). A
    // database shared with a multi-user gateway holds other users' rows, answers included.
    queryAudit: async (f) => {
      const rows = await host.audit.query({
        scope: { tenant: host.scope.tenant, user: host.scope.user },
        server: f.server,
        kind: f.kind,
        limit: f.limit,
      });
      return rows.filter((r) => !f.action || r.action === f.action);
    },
    subscribe(listener) {
      // A server causes events at will: every broker event (requests, refused ones too, at hundreds a
      // second) may add audit rows, and every stderr line changes its server's card. Each panel is
      // reloaded at most once per EVENT_INTERVAL_MS: the first event at once, the rest of the interval
      // as one at its end (so the page ends on the latest state).
      const last = new Map<string, number>();
      const timers = new Map<string, NodeJS.Timeout>();
      const send = (key: string, out: HostEvent) => {
        last.set(key, Date.now());
        listener(out);
      };
      const throttled = (key: string, out: HostEvent) => {
        if (timers.has(key)) return;
        const wait = (last.get(key) ?? Number.NEGATIVE_INFINITY) + EVENT_INTERVAL_MS - Date.now();
        if (wait <= 0) return send(key, out);
        const timer = setTimeout(() => {
          timers.delete(key);
          send(key, out);
        }, wait);
        timers.set(key, timer.unref());
      };
      const off = host.on((e) => {
        if (e.type === 'server' || e.type === 'stderr') throttled(`servers\0${e.server}`, { type: 'servers', server: e.server });
        else if (e.type === 'roots') listener({ type: 'roots' });
        else if (e.type === 'tool-call' || e.type === 'broker') throttled('audit', { type: 'audit' });
        // An answer may have been remembered (or auto-answered): refresh the list of remembered answers.
        if (e.type === 'broker' && e.event.type === 'answered') listener({ type: 'answers' });
        if (e.type === 'server' && e.state.status === 'running') listener({ type: 'tools', server: e.server });
      });
      return () => {
        for (const t of timers.values()) clearTimeout(t);
        off();
      };
    },
  };
}

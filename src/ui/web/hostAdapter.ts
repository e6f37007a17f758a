/**
 * Adapts the host runtime (`createHost`) to the console's narrow {@link HostApi}. Lives in the UI
 * layer so the host core never learns about the console.
 * @module
 */
import { pathToFileURL } from 'node:url';
import { exportPresets } from '../../host/store/index.js';
import type { Host, Store } from '../../host/index.js';
import type { ServerState as HostServerState } from '../../host/servers/index.js';
import { HostApiError, type HostApi, type HostEvent, type ServerInfo, type ServerState, type ToolInfo } from './hostApi.js';

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
      host.listServers().map((s) => ({ name: s.name, ...stateOf(s.state), revision: s.revision, capabilities: s.capabilities as Record<string, unknown> | undefined, stderr: s.stderr.slice(-50), transport: s.type })),
    async restartServer(name) {
      await host.servers.stop(name);
      await host.servers.start(name);
    },
    async listTools(): Promise<ToolInfo[]> {
      const out: ToolInfo[] = [];
      for (const s of host.listServers()) {
        if (s.state.status !== 'running') continue;
        try {
          const { tools } = await host.servers.listTools(s.name);
          for (const t of tools) out.push({ server: s.name, name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema as Record<string, unknown> });
        } catch {
          // a server that fails to list is shown by its state; its tools are left out
        }
      }
      return out;
    },
    callTool: (server, tool, args) => host.callTool(server, tool, args) as never,
    listRoots: () => host.roots.list().map((r) => ({ uri: r.uri, name: r.name, lifetime: r.lifetime, source: r.source, health: r.health })),
    async addRoot(root) {
      const r = await host.roots.addChecked(toRootUri(root.uri), { name: root.name, lifetime: root.lifetime ?? 'session', source: 'user' });
      return { uri: r.uri, name: r.name, lifetime: r.lifetime, source: r.source, health: r.health };
    },
    removeRoot: (uri) => host.roots.remove(uri),
    listPresets: async () => (await host.presets.list()).map((p) => ({ name: p.name, updatedAt: p.updatedAt, roots: p.roots.length, servers: Object.keys(p.answers) })),
    savePreset: async (name) => void (await host.presets.save(name)),
    loadPreset: async (name) => void (await host.presets.load(name)),
    exportPresets: () => (store ? exportPresets(store, host.scope) : JSON.stringify({ presets: [] })),
    queryAudit: async (f) => (await host.audit.query({ server: f.server, kind: f.kind, limit: f.limit })).filter((r) => !f.action || r.action === f.action),
    subscribe(listener) {
      return host.on((e) => {
        let out: HostEvent | undefined;
        if (e.type === 'server' || e.type === 'stderr') out = { type: 'servers', server: e.server };
        else if (e.type === 'roots') out = { type: 'roots' };
        else if (e.type === 'tool-call' || e.type === 'broker') out = { type: 'audit' };
        if (out) listener(out);
        if (e.type === 'server' && e.state.status === 'running') listener({ type: 'tools', server: e.server });
      });
    },
  };
}

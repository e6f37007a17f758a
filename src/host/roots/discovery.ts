/**
 * Dynamic discovery, fed from the live servers on its own (configuration essay §2.2): when a server
 * is running, the root router learns what it serves from
 * - its resource templates (`resources/templates/list` → `uriTemplate`, first page, at most
 *   {@link MAX_DISCOVERY_TEMPLATES}), when it declared the `resources` capability;
 * - the URI schemes it declares in `capabilities.experimental['parley/uriSchemes']` (`routing.ts`);
 * and learns again on its `notifications/resources/list_changed` (templates are resources). When the
 * server stops (or crashes) its discovery is forgotten until it runs again. Each change re-routes
 * roots: servers whose `roots/list` answer changed are told (`RootsChange.servers`).
 *
 * Static routes still win over discovery (`routing.ts`). A lazy server that has not run yet is not
 * discovered: name it in a route if a URI must start it.
 * @module
 */
import type { RootRegistry } from './registry.js';

/** Most templates taken from one server for routing. */
export const MAX_DISCOVERY_TEMPLATES = 1000;

/** The part of the `ServerManager` discovery needs. */
export interface DiscoverySource {
  events: {
    on(event: 'state', fn: (e: { server: string; state: { status: string } }) => void): unknown;
    on(event: 'listChanged', fn: (e: { server: string; kind: string }) => void): unknown;
  };
  info(name: string): { serverCapabilities?: unknown } | undefined;
  listResourceTemplates(name: string): Promise<{ resourceTemplates: Array<{ uriTemplate: string }> }>;
}

/**
 * Keeps `registry`'s discovery in step with `servers`. Returns a function that waits until the
 * discovery runs started so far have finished (tests, and `serversFor` right after a start).
 */
export function feedDiscovery(
  registry: RootRegistry,
  servers: DiscoverySource,
  log?: (level: 'warn', message: string) => void,
): () => Promise<void> {
  const inFlight = new Map<string, Promise<void>>();
  const generation = new Map<string, number>();
  const learn = (server: string) => {
    const gen = (generation.get(server) ?? 0) + 1;
    generation.set(server, gen);
    const caps = servers.info(server)?.serverCapabilities as { resources?: unknown } | undefined;
    const run = (async () => {
      let uriTemplates: string[] = [];
      if (caps?.resources) {
        try {
          const r = await servers.listResourceTemplates(server);
          uriTemplates = (r.resourceTemplates ?? [])
            .slice(0, MAX_DISCOVERY_TEMPLATES)
            .map((t) => t.uriTemplate)
            .filter((t) => typeof t === 'string');
        } catch (e) {
          log?.(
            'warn',
            `discovery: resources/templates/list of "${server}" failed (${(e as Error).message}); routing by its declared schemes only`,
          );
        }
      }
      if (generation.get(server) !== gen) return; // a newer run (restart, list change) decides
      const bad = registry.setDiscovery(server, { uriTemplates, capabilities: caps });
      if (bad.length) log?.('warn', `discovery: ignored ${bad.length} malformed URI template(s) of "${server}"`);
    })();
    const p = run.finally(() => {
      if (inFlight.get(server) === p) inFlight.delete(server);
    });
    inFlight.set(server, p);
  };
  servers.events.on('state', ({ server, state }) => {
    if (state.status === 'running') learn(server);
    else if (state.status === 'stopped' || state.status === 'error') {
      generation.set(server, (generation.get(server) ?? 0) + 1);
      registry.clearDiscovery(server);
    }
  });
  servers.events.on('listChanged', ({ server, kind }) => {
    if (kind === 'resources') learn(server);
  });
  return async () => {
    while (inFlight.size) await Promise.all([...inFlight.values()]);
  };
}

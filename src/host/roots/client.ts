/**
 * Glue between a {@link RootRegistry} and one connected SDK client: answer `roots/list` with
 * `registry.rootsForServer(server)` and send `notifications/roots/list_changed` when the registry says
 * this server's list changed (`client/roots.mdx` §Root List Changes: clients that declared
 * `roots.listChanged` MUST notify). The client must have been created with
 * `capabilities: { roots: { listChanged: true } }` (the SDK throws otherwise).
 *
 * On 2026-07-28 the notification no longer exists (SEP-2575); pass `notify: false` for modern
 * connections: the handler still answers `roots/list` input requests.
 * @module
 */
import type { RootRegistry } from './registry.js';

/** The part of an SDK v2 `Client` used here. */
export interface RootsClient {
  setRequestHandler(method: 'roots/list', handler: () => Promise<{ roots: Array<{ uri: string; name?: string }> }>): void;
  sendRootsListChanged(): Promise<void>;
}

export interface BindRootsOptions {
  /** Send `list_changed` on changes. @default true */
  notify?: boolean;
  /** Called with failures of `sendRootsListChanged` (closed transport, modern era). @default ignore */
  onError?: (err: unknown) => void;
  /** Called after each `roots/list` answer (for audit: what this server was shown). */
  onAnswer?: (roots: Array<{ uri: string; name?: string }>) => void;
}

/**
 * Installs the `roots/list` handler on `client` for `server` and subscribes to registry changes.
 * @returns an unbind function (stops notifications; the SDK handler stays until the client closes).
 */
export function bindRootsToClient(registry: RootRegistry, server: string, client: RootsClient, opts: BindRootsOptions = {}): () => void {
  client.setRequestHandler('roots/list', async () => {
    const roots = registry.rootsForServer(server);
    opts.onAnswer?.(roots);
    return { roots };
  });
  if (opts.notify === false) return () => undefined;
  return registry.on('change', (change) => {
    if (!change.servers.includes(server)) return;
    client.sendRootsListChanged().catch((e: unknown) => opts.onError?.(e));
  });
}

/**
 * The parts behind the {@link Host} facade: its server manager, elicitation broker and root
 * registry. Not exported by `mcp-parley/host` and not part of the `Host` type: code outside
 * src/host composes through the facade's operations (biome.json forbids importing this module
 * outside src/host; tests may use it to observe internal state).
 * @module
 */
import type { ElicitationBroker } from './broker/index.js';
import type { Host } from './host.js';
import type { RootRegistry } from './roots/index.js';
import type { ServerManager } from './servers/index.js';

/** What a host is made of (see the module doc). */
export interface HostInternals {
  readonly servers: ServerManager;
  readonly broker: ElicitationBroker;
  readonly roots: RootRegistry;
}

const parts = new WeakMap<Host, HostInternals>();

/** Records what `host` is made of (called once by `createHost`). */
export function setHostInternals(host: Host, internals: HostInternals): void {
  parts.set(host, internals);
}

/** The parts of a host made by `createHost`. @throws TypeError for any other object */
export function hostInternals(host: Host): HostInternals {
  const p = parts.get(host);
  if (!p) throw new TypeError('not a host made by createHost');
  return p;
}

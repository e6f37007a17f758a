/** Host-side roots: registry, routing, health checks. @module */
export { RootRegistry } from './registry.js';
export type { RegisteredRoot, RootsChange, RootStore, RootRegistryOptions, AddRootOptions, RootLifetime, RootSource } from './registry.js';
export {
  UriRouter,
  RouteError,
  URI_SCHEMES_CAPABILITY,
  declaredSchemes,
  uriTemplateToRegExp,
  MAX_TEMPLATE_CHARS,
  MAX_MATCH_URI_CHARS,
} from './routing.js';
export type { TemplateMatcher } from './routing.js';
export { feedDiscovery, MAX_DISCOVERY_TEMPLATES } from './discovery.js';
export type { DiscoverySource } from './discovery.js';
export { RootWatcher, WATCH_DEBOUNCE_MS, MAX_WATCHERS } from './watch.js';
export { globToRegExp } from './glob.js';
export { checkRootHealth, DEFAULT_HEALTH_TIMEOUT_MS } from './health.js';
export type { RootHealth } from './health.js';
export { bindRootsToClient } from './client.js';
export type { RootsClient, BindRootsOptions } from './client.js';

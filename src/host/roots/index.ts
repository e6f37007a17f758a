/** Host-side roots: registry, routing, health checks. @module */
export { RootRegistry } from './registry.js';
export type { RegisteredRoot, RootsChange, RootStore, RootRegistryOptions, AddRootOptions, RootLifetime, RootSource } from './registry.js';
export { UriRouter, RouteError, URI_SCHEMES_CAPABILITY, declaredSchemes, uriTemplateToRegExp } from './routing.js';
export { globToRegExp } from './glob.js';
export { checkRootHealth, DEFAULT_HEALTH_TIMEOUT_MS } from './health.js';
export type { RootHealth } from './health.js';
export { bindRootsToClient } from './client.js';
export type { RootsClient, BindRootsOptions } from './client.js';

/**
 * mcp-parley/host: the host runtime — static configuration, the store, and (as they land) servers,
 * roots and routing, and the elicitation broker.
 * @module
 */
export * from './config/index.js';
export * from './store/index.js';
export * from './roots/index.js';
export * from './servers/index.js';
export * from './broker/index.js';
export * from './presenter.js';
export { createHost, PresetNotFoundError, type Host, type HostOptions, type HostEvent, type ServerSummary } from './host.js';
export { ResourceInputDeclinedError, COMPLETION_TIMEOUT_MS, COMPLETION_ENUM_MAX } from './resources.js';

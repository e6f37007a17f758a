/**
 * mcp-parley/server: the server toolkit. Write an interactive tool once; it elicits, asks for URL-mode
 * consent, lists roots and completes configuration the same way on MCP revisions 2025-06-18,
 * 2025-11-25 (pushed requests) and 2026-07-28 (`input_required` / MRTR). See docs/server.md.
 * @module
 */
export { createParleyServer } from './server.js';
export type { ParleyServer, ParleyServerOptions, ParleyToolOptions, ParleyToolHandler } from './server.js';
export { isSuspendSignal } from './context.js';
export type { ParleyContext, ElicitOutcome, UrlOutcome, ElicitOptions, ParleyRoot, InputKind } from './context.js';
export { defineConfig, CONFIG_CACHE_MAX } from './config.js';
export type { ConfigDef } from './config.js';
export { createShared, defaultShared } from './shared.js';
export type { Shared, UrlFlow } from './shared.js';
export type { ListKind, ListChangeScope } from './lists.js';
export {
  ParleyServerError,
  ElicitationSchemaError,
  ElicitationAnswerError,
  ElicitationTimeoutError,
  InputUnavailableError,
  ElicitationRefusedError,
} from './errors.js';
export type { NeededField } from './errors.js';
export {
  parseRootsList,
  resolveInRoots,
  requestRoots,
  rootsFromInputResponses,
  isPathInside,
  RootsAccessError,
  RootsCache,
} from './roots.js';
export type { ParsedRoot, DroppedRoot, RootsLog, RootsAccessErrorCode, RootsRequester, ResolveInRootsOptions } from './roots.js';
export { readEra, elicitModes, userOf } from './era.js';
export type { RequestEra } from './era.js';
export { serve } from './serve.js';
export type { ServerFactory, HttpOptions, ServeHandle } from './serve.js';
export type { ParleyResourceOptions, ParleyResourceContext, ParleyResourceHandler } from './templates.js';
// Internal pieces kept for compatibility, @deprecated (removed in the next major version).
export { argsDigest, ConfigCache, ListChanges } from './deprecated.js';
export type { StatePayload, ListChange } from './deprecated.js';

/**
 * Internal pieces `mcp-parley/server` has exported since 0.1, kept so callers do not break and marked
 * `@deprecated` at the public name only (parley's own modules import the originals from their files).
 * Each goes in the next major version. docs/server.md "Exports" lists what to use instead.
 * @module
 */
import { ConfigCache as ConfigCacheImpl } from './config.js';
import { ListChanges as ListChangesImpl } from './lists.js';
import type { ListChange as ListChangeImpl } from './lists.js';
import { argsDigest as argsDigestImpl } from './seal.js';
import type { StatePayload as StatePayloadImpl } from './seal.js';

/**
 * SHA-256 digest (base64url) of a tool call's arguments in canonical JSON, which the toolkit binds its
 * sealed 2026-07-28 `requestState` to.
 * @deprecated Internal to the toolkit's `requestState` check (it seals and verifies the state itself);
 * no replacement. Removed from `mcp-parley/server` in the next major version.
 */
export const argsDigest: typeof argsDigestImpl = argsDigestImpl;

/**
 * The payload of a sealed `requestState`.
 * @deprecated Internal wire format of the toolkit's `requestState` (it may change in any release); no
 * replacement. Removed from `mcp-parley/server` in the next major version.
 */
export type StatePayload = StatePayloadImpl;

/**
 * The configuration cache a `Shared` holds (`shared.config`).
 * @deprecated Use `defineConfig` with `ctx.config(def)` / `ctx.resetConfig(def)`; the cache (bound:
 * `CONFIG_CACHE_MAX`, clock: `createShared({now})`) lives in the `Shared` from `createShared()`.
 * Removed from `mcp-parley/server` in the next major version.
 */
export const ConfigCache: typeof ConfigCacheImpl = ConfigCacheImpl;
/** @deprecated Use `defineConfig` with `ctx.config` / `ctx.resetConfig`. Removed in the next major version. */
export type ConfigCache = ConfigCacheImpl;

/**
 * The list-change hub a `Shared` holds (`shared.lists`).
 * @deprecated Use `shared.listChanged(kinds, scope?)` or `handle.listChanged(kinds, scope?)` (types
 * `ListKind`, `ListChangeScope`). Removed from `mcp-parley/server` in the next major version.
 */
export const ListChanges: typeof ListChangesImpl = ListChangesImpl;
/** @deprecated Use `shared.listChanged` or `handle.listChanged`. Removed in the next major version. */
export type ListChanges = ListChangesImpl;

/**
 * One announcement as `serve()` receives it from the hub.
 * @deprecated Internal to `serve()`. Use `shared.listChanged(kinds, scope?)` to announce (types `ListKind`,
 * `ListChangeScope`).
 * Removed from `mcp-parley/server` in the next major version.
 */
export type ListChange = ListChangeImpl;

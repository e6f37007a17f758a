/**
 * State shared by every McpServer instance a factory creates (one per connection on legacy, one per
 * request on 2026-07-28): the requestState key, the configuration cache, URL-mode flows and the
 * list-change hub.
 * @module
 */
import { ConfigCache } from './config.js';
import { randomBytes } from 'node:crypto';
import type { RequestStateCodec } from '@modelcontextprotocol/server';
import { stateCodec } from './seal.js';
import type { StatePayload } from './seal.js';
import { ListChanges } from './lists.js';
import type { ListChangeScope, ListKind } from './lists.js';

/** A URL-mode flow, bound to the user (and the session when no user is known). */
export interface UrlFlow {
  user: string;
  session: string;
  complete: boolean;
  /** Creation time, ms since epoch. */
  createdAt: number;
  /** Sends `notifications/elicitation/complete` to the connection that started it (2025-11-25). */
  notify?: () => Promise<void>;
}

/** Shared state. Create one per server process with `createShared` and pass it to every `createParleyServer`. */
export interface Shared {
  /**
   * The SDK request-state codec (`createRequestStateCodec`) for states that live `ttlMs`, keyed with this
   * `Shared`'s `requestStateKey` and bound to the request's user; one codec per lifetime, made on first use.
   */
  requestStates(ttlMs: number): RequestStateCodec<StatePayload>;
  config: ConfigCache;
  urlFlows: Map<string, UrlFlow>;
  /** Records a flow; flows older than `urlFlowTtlMs` are pruned on the way. */
  addUrlFlow(id: string, flow: UrlFlow): void;
  /** Clock in ms since epoch (injectable for tests). */
  now: () => number;
  /**
   * Connections that listed configuration-dependent tools (2025 eras) subscribe here; a completed
   * configuration is announced with its config key so every connection it changes re-lists.
   */
  configChanged: Set<(key: string) => void>;
  /** List-change hub the serving entries subscribe to (`serve()` does it for you). */
  lists: ListChanges;
  /**
   * Says "these lists changed" once, for every client of every `serve()` handle whose factory uses this
   * `Shared`: each 2025-era session (HTTP) or stdio connection gets `notifications/<kind>/list_changed`,
   * each 2026-07-28 `subscriptions/listen` stream that asked for that kind gets it on the stream.
   * `scope.user` / `scope.era` narrow the audience. See docs/server.md "List changes".
   * @throws TypeError for an unknown kind.
   */
  listChanged(kinds: ListKind | readonly ListKind[], scope?: ListChangeScope): void;
}

/** `createParleyServer`'s default `requestStateTtlMs`, ms (30 min). */
export const DEFAULT_STATE_TTL_MS = 1_800_000;

/**
 * @param opts.requestStateKey HMAC key of `requestState`, at least 32 bytes (a string is UTF-8 encoded);
 *   random per process when omitted (then every round of a 2026-07-28 flow must reach this process).
 * @throws RangeError (from the SDK's codec) for a key shorter than 32 bytes.
 * @param opts.now clock in ms of the configuration cache and URL flows (a `requestState` expires on the SDK
 *   codec's clock, `Date.now`). @default Date.now
 * @param opts.urlFlowTtlMs how long a URL-mode flow can be completed, in ms. @default 86_400_000 (24 h)
 */
export function createShared(opts: { requestStateKey?: Uint8Array | string; now?: () => number; urlFlowTtlMs?: number } = {}): Shared {
  const now = opts.now ?? Date.now;
  const ttl = opts.urlFlowTtlMs ?? 86_400_000;
  const urlFlows = new Map<string, UrlFlow>();
  const lists = new ListChanges();
  const key = opts.requestStateKey ?? randomBytes(32);
  const codecs = new Map([[DEFAULT_STATE_TTL_MS, stateCodec(key, DEFAULT_STATE_TTL_MS)]]); // checks the key now
  return {
    requestStates: (ttlMs) => {
      let codec = codecs.get(ttlMs);
      if (!codec) codecs.set(ttlMs, (codec = stateCodec(key, ttlMs)));
      return codec;
    },
    config: new ConfigCache(now),
    urlFlows,
    now,
    configChanged: new Set(),
    lists,
    listChanged: (kinds, scope) => lists.announce(kinds, scope),
    addUrlFlow(id, flow) {
      for (const [k, f] of urlFlows) if (now() - f.createdAt > ttl) urlFlows.delete(k);
      urlFlows.set(id, flow);
    },
  };
}

let processShared: Shared | undefined;
/** The process-wide default used when `createParleyServer` gets no `shared`. */
export function defaultShared(): Shared {
  return (processShared ??= createShared());
}

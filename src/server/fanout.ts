/**
 * The serving side of list-change announcements (`lists.ts`), one per `serve()` handle. It keeps the
 * handle's sinks:
 * - long-lived instances (one per 2025-era HTTP session, the stdio connection's pinned instance), told by
 *   their own `notifications/<kind>/list_changed` (on a 2026-07-28 stdio connection the SDK's stdio
 *   listen router moves that onto the open `subscriptions/listen` subscriptions that asked for it);
 * - the `subscriptions/listen` streams of `createMcpHandler` (2026-07-28 HTTP), through the event bus
 *   given to it; the SDK's listen router sends each event only to streams whose filter asked for it.
 * Streams and sessions remember their user, so an announcement can be narrowed to one user.
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { McpServer, ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import { LIST_KINDS } from './lists.js';
import type { ListChange, ListKind } from './lists.js';
import type { Shared } from './shared.js';

const SEND = { tools: 'sendToolListChanged', prompts: 'sendPromptListChanged', resources: 'sendResourceListChanged' } as const;
const EVENT = { tools: 'tools_list_changed', prompts: 'prompts_list_changed', resources: 'resources_list_changed' } as const;

/**
 * Sends `notifications/<kind>/list_changed` on the instance's own connection when it is connected and
 * declared `<kind>.listChanged` (a server that did not declare it must not be trusted to send it, and the
 * SDK throws for an undeclared `<kind>` capability). Never throws.
 */
export function sendOwn(mcp: McpServer, kind: ListKind): void {
  if (!mcp.isConnected() || !mcp.server.getCapabilities()[kind]?.listChanged) return;
  void mcp.server[SEND[kind]]().catch(() => undefined);
}

interface Live<P> {
  user: string;
  era: 'legacy' | 'modern';
  product: P;
}

interface Stream {
  user: string;
  deliver: (event: ServerEvent) => void;
}

/** Sinks of one `serve()` handle. */
export class ListFanout<P = unknown> {
  /** Long-lived instances → their user, era and what the factory returned. */
  private readonly live = new Map<McpServer, Live<P>>();
  private readonly streams = new Set<Stream>();
  private readonly requestUser = new AsyncLocalStorage<string>();
  private readonly hubs = new Map<Shared, () => void>();
  /** Modern events waiting for the end of the current job (`${kind}\0${user}`). */
  private readonly pending = new Set<string>();

  /**
   * Give this to `createMcpHandler({bus})`. `subscribe` runs synchronously inside the listen request
   * (the SDK's listen router subscribes while building the SSE response), so the stream's user is the
   * one `runAs` set for that request.
   */
  readonly bus: ServerEventBus = {
    publish: (event) => {
      if (event.kind !== 'resource_updated') this.publishModern(event.kind.replace('_list_changed', '') as ListKind, '');
      else for (const s of this.streams) s.deliver(event);
    },
    subscribe: (deliver) => {
      const stream: Stream = { user: this.requestUser.getStore() ?? '', deliver };
      this.streams.add(stream);
      return () => void this.streams.delete(stream);
    },
  };

  /** Runs a 2026-07-28 HTTP request with its user known to `bus.subscribe`. */
  runAs<T>(user: string, fn: () => T): T {
    return this.requestUser.run(user, fn);
  }

  /** Subscribes this handle to the announcements of the instance's `Shared` (once per `Shared`). */
  watch(product: unknown): void {
    const shared = (product as { shared?: Shared } | null)?.shared;
    if (!shared?.lists || this.hubs.has(shared)) return;
    this.hubs.set(
      shared,
      shared.lists.subscribe((c) => this.announce(c)),
    );
  }

  /** Records a long-lived instance until its connection closes. */
  addLive(mcp: McpServer, live: Live<P>): void {
    this.live.set(mcp, live);
    const prev = mcp.server.onclose;
    mcp.server.onclose = () => {
      prev?.();
      this.live.delete(mcp);
    };
  }

  /** What the factory returned for each open 2025-era session or stdio connection. */
  products(): P[] {
    return [...this.live.values()].map((v) => v.product);
  }

  /**
   * Routes an instance's own list changes (the SDK's register/remove/update after connect, or an explicit
   * `mcp.send<Kind>ListChanged()`): to its own connection (`ownConnection`, the 2025-era behaviour) and to
   * every 2026-07-28 listen stream, whose lists the factory builds afresh per request.
   */
  hookInstance(mcp: McpServer, ownConnection: boolean): void {
    for (const kind of LIST_KINDS) {
      mcp[SEND[kind]] = () => {
        if (!mcp.isConnected()) return; // registrations while the factory builds the instance
        if (ownConnection) sendOwn(mcp, kind);
        this.publishModern(kind, '');
      };
    }
  }

  /** Delivers one announcement to every sink in its scope. */
  announce(c: ListChange): void {
    const user = c.user ?? '';
    for (const [mcp, v] of this.live) if ((!user || v.user === user) && (!c.era || v.era === c.era)) sendOwn(mcp, c.kind);
    if (c.era !== 'legacy') this.publishModern(c.kind, user);
  }

  /** Coalesces the events of one synchronous burst (e.g. five registrations) into one per stream. */
  private publishModern(kind: ListKind, user: string): void {
    const key = `${kind}\0${user}`;
    if (this.pending.has(key)) return;
    this.pending.add(key);
    queueMicrotask(() => {
      this.pending.delete(key);
      for (const s of this.streams) {
        if (user && s.user !== user) continue;
        try {
          s.deliver({ kind: EVENT[kind] });
        } catch {
          // a closed stream's writer; the router unsubscribes it on teardown
        }
      }
    });
  }

  /** Stops listening to every `Shared`; forgets sessions and streams. */
  close(): void {
    for (const off of this.hubs.values()) off();
    this.hubs.clear();
    this.live.clear();
    this.streams.clear();
  }
}

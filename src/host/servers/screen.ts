/**
 * The liberal reader's seam in front of the SDK v2 `Client` (issue 12 items 4 and 5). On 2025-era
 * connections the Client validates a pushed `elicitation/create` against its own wire schema before
 * any handler runs: a `$ref`, a nested object or a missing `message` is answered with a -32602 zod dump
 * that parley never sees (no audit row, nobody told). The screen sits on the transport's `onmessage`,
 * before the Client:
 *
 * - `elicitation/create`: the Client is handed the same request with a minimal conforming `params`
 *   (`{message: '', requestedSchema: {type: 'object', properties: {}}}`, plus the original `_meta`
 *   when it is an object); the original `params`, whatever they are (`null`, an array, garbage), are
 *   kept by request id and given to the broker instead ({@link Screen.take}). The broker then repairs
 *   what the rules repair (inline `$ref`, …) and refuses the rest with its own short -32602 naming the
 *   rule and pointer, audited and told to the person; the Client sends that answer as usual.
 * - `roots/list`: only an object `_meta` is kept (roots/list has no other params); anything else the
 *   server put there is ignored, so the request is always answered.
 *
 * Kept originals are bounded ({@link MAX_KEPT}, oldest dropped first) and each is taken once. Over
 * Streamable HTTP, non-object params reach the screen wrapped by `wire-repair.ts` and are unwrapped
 * here; parley's stdio transport (`stdio-transport.ts`) wraps them the same way. Over legacy HTTP+SSE the
 * SDK transport drops them before `onmessage`. Uses only the transport's public `onmessage`; no SDK internals.
 * @module
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { ORIGINAL_PARAMS } from './wire-repair.js';

/** Most originals kept at once (requests the Client has not yet handed to a handler). */
export const MAX_KEPT = 1_024;

/** The conforming `params` the Client validates in place of the server's. */
function placeholder(params: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { message: '', requestedSchema: { type: 'object', properties: {} } };
  const meta = isPlain(params) ? params._meta : undefined;
  if (isPlain(meta)) out._meta = meta;
  return out;
}

/** The server's own params: unwrapped when `wire-repair.ts` carried non-object params past the transport. */
function unwrap(params: unknown): unknown {
  const meta = isPlain(params) ? params._meta : undefined;
  return isPlain(meta) && Object.prototype.hasOwnProperty.call(meta, ORIGINAL_PARAMS) ? meta[ORIGINAL_PARAMS] : params;
}

function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

type Id = string | number;

export class Screen {
  readonly #kept = new Map<Id, { params: unknown }>();

  /**
   * The message to hand to the Client for `msg`: `msg` itself, or a copy with screened `params`.
   * Never throws; never drops a message.
   */
  inbound(msg: JSONRPCMessage): JSONRPCMessage {
    const m = msg as { id?: unknown; method?: unknown; params?: unknown };
    if (typeof m.method !== 'string' || (typeof m.id !== 'string' && typeof m.id !== 'number')) return msg;
    const original = unwrap(m.params);
    if (m.method === 'elicitation/create') {
      if (this.#kept.size >= MAX_KEPT) this.#kept.delete(this.#kept.keys().next().value as Id);
      this.#kept.set(m.id, { params: original });
      return { ...msg, params: placeholder(original) } as JSONRPCMessage;
    }
    if (m.method === 'roots/list' && m.params !== undefined) {
      const meta = isPlain(original) ? original._meta : undefined;
      const copy = { ...msg } as Record<string, unknown>;
      if (isPlain(meta)) copy.params = { _meta: meta };
      else delete copy.params;
      return copy as unknown as JSONRPCMessage;
    }
    return msg;
  }

  /**
   * The server's original `params` of the `elicitation/create` with JSON-RPC id `id`, once (the entry
   * is removed); `{found: false}` when the screen did not see it (e.g. an MRTR `inputRequests` entry,
   * which the Client synthesises itself).
   */
  take(id: Id): { found: true; params: unknown } | { found: false } {
    const e = this.#kept.get(id);
    if (!e) return { found: false };
    this.#kept.delete(id);
    return { found: true, params: e.params };
  }

  /** Originals kept (for tests). */
  get size(): number {
    return this.#kept.size;
  }
}

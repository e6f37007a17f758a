/**
 * Which tool call an input request belongs to ("call attribution"), so a prompt can say what it is
 * for and a gateway can send it to the upstream session whose call caused it.
 *
 * - 2026-07-28 (modern): an `input_required` result answers one `tools/call`, and parley drives those
 *   rounds itself (`./mrtr.ts`), so every entry is answered with its call known exactly. The rules
 *   below apply to what still reaches the wire handlers (the SDK's auto-fulfilment of other methods).
 * - 2025 eras (legacy): a pushed `elicitation/create` carries no link to its tool call on stdio
 *   (`protocol.md` §5.3 only says it arrives while a client request is in flight). The runtime
 *   tracks the calls in flight per connection: with one, the request is that call's. With several,
 *   over Streamable HTTP a request the server sent on a `tools/call` POST's own SSE stream is that
 *   call's ({@link StreamCalls}: the spec's "SHOULD relate to the originating client request");
 *   otherwise (stdio, legacy HTTP+SSE, the GET stream) with several of one `tag` it is that tag's
 *   (`tool` lists the candidates, `callId` is empty), and with several tags it is not attributed
 *   (`call` absent).
 * @module
 */

/** The tool call an input request belongs to. */
export interface CallRef {
  /** Tool name; `"one of: a, b"` when several calls of one tag are in flight. */
  tool: string;
  /** Unique per call; `''` when several calls of one tag are in flight. */
  callId: string;
  /** The caller's opaque tag given to `callTool` (a gateway puts its upstream session id here). */
  tag?: string;
}

const inFlight = new WeakMap<object, Set<CallRef>>();

/**
 * Runs `fn` (the wire call) with `ref` registered as in flight on `connection` until it settles.
 * (No AsyncLocalStorage: it would turn on Node's promise hooks for every promise of the process.)
 */
export async function runAsCall<T>(connection: object, ref: CallRef, fn: () => Promise<T>): Promise<T> {
  let calls = inFlight.get(connection);
  if (!calls) inFlight.set(connection, (calls = new Set()));
  calls.add(ref);
  try {
    return await fn();
  } finally {
    calls.delete(ref);
  }
}

/**
 * The call an input request arriving on `connection` belongs to, if it can be known (see module doc).
 * `streams` and `id` (the request's JSON-RPC id) are looked at only while several calls are in flight.
 */
export function attributeCall(connection: object, streams?: StreamCalls, id?: string | number): CallRef | undefined {
  const calls = inFlight.get(connection);
  if (!calls || calls.size === 0) return undefined;
  const all = [...calls];
  if (all.length === 1) return all[0];
  const callId = streams && id !== undefined ? streams.take(id) : undefined;
  if (callId !== undefined) for (const c of all) if (c.callId === callId) return c;
  const tag = all[0].tag;
  if (tag === undefined || all.some((c) => c.tag !== tag)) return undefined;
  return { tool: `one of: ${[...new Set(all.map((c) => c.tool))].join(', ')}`, callId: '', tag };
}

/**
 * The HTTP request header that carries a 2025-era `tools/call`'s `CallRef.callId` from `tool-call.ts`
 * to parley's own `fetch` (`wire-repair.ts`), which removes it before the request leaves: the server
 * never sees it.
 */
export const CALL_HEADER = 'x-parley-call';

/** Most request ids {@link StreamCalls} keeps at once (oldest dropped first). */
export const MAX_STREAM_CALLS = 1_024;

/**
 * Per Streamable HTTP connection: which tool call's POST stream each server request arrived on
 * (JSON-RPC id → `callId`), noted by `wire-repair.ts` as the event passes, taken once by
 * {@link attributeCall}. Only noted while several calls are in flight on `connection` (with one, the
 * request is that call's anyway), so a connection with one call at a time keeps nothing and pays one
 * look-up per server request. Bounded by {@link MAX_STREAM_CALLS}; an id the server reuses is noted afresh.
 */
export class StreamCalls {
  readonly #byId = new Map<string | number, string>();
  /** The connection object calls are tracked on ({@link runAsCall}): the SDK `Client`. */
  connection?: object;

  note(id: string | number, callId: string): void {
    if (this.connection && (inFlight.get(this.connection)?.size ?? 0) < 2) return;
    if (this.#byId.size >= MAX_STREAM_CALLS) this.#byId.delete(this.#byId.keys().next().value as string | number);
    this.#byId.set(id, callId);
  }

  /** The `callId` of the stream request `id` arrived on, once; `undefined` when not known. */
  take(id: string | number): string | undefined {
    const callId = this.#byId.get(id);
    if (callId !== undefined) this.#byId.delete(id);
    return callId;
  }

  /** Ids kept (for tests). */
  get size(): number {
    return this.#byId.size;
  }
}

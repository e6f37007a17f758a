/**
 * Which tool call an input request belongs to ("call attribution"), so a prompt can say what it is
 * for and a gateway can send it to the upstream session whose call caused it.
 *
 * - 2026-07-28 (modern): an `input_required` result answers one `tools/call`, and parley drives those
 *   rounds itself (`./mrtr.ts`), so every entry is answered with its call known exactly. The rules
 *   below apply to what still reaches the wire handlers (the SDK's auto-fulfilment of other methods).
 * - 2025 eras (legacy): a pushed `elicitation/create` carries no link to its tool call on stdio
 *   (`protocol.md` §5.3 only says it arrives while a client request is in flight). The runtime
 *   tracks the calls in flight per connection: with one, the request is that call's; with several of
 *   one `tag`, it is that tag's (`tool` lists the candidates, `callId` is empty); with several tags it
 *   is not attributed (`call` absent).
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

/** The call an input request arriving on `connection` belongs to, if it can be known (see module doc). */
export function attributeCall(connection: object): CallRef | undefined {
  const calls = inFlight.get(connection);
  if (!calls || calls.size === 0) return undefined;
  const all = [...calls];
  if (all.length === 1) return all[0];
  const tag = all[0].tag;
  if (tag === undefined || all.some((c) => c.tag !== tag)) return undefined;
  return { tool: `one of: ${[...new Set(all.map((c) => c.tool))].join(', ')}`, callId: '', tag };
}

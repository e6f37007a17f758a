/**
 * Which tool call an input request belongs to ("call attribution"), so a prompt can say what it is
 * for and a gateway can send it to the upstream session whose call caused it.
 *
 * - 2026-07-28 (modern): an `input_required` result answers one `tools/call`; the SDK Client runs the
 *   elicitation handler inside that call's async chain, so an `AsyncLocalStorage` scope set around the
 *   call identifies it exactly.
 * - 2025 eras (legacy): a pushed `elicitation/create` carries no link to its tool call on stdio
 *   (`protocol.md` §5.3 only says it arrives while a client request is in flight). The runtime
 *   tracks the calls in flight per connection: with one, the request is that call's; with several of
 *   one `tag`, it is that tag's (`tool` lists the candidates, `callId` is empty); with several tags it
 *   is not attributed (`call` absent).
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** The tool call an input request belongs to. */
export interface CallRef {
  /** Tool name; `"one of: a, b"` when several calls of one tag are in flight. */
  tool: string;
  /** Unique per call; `''` when several calls of one tag are in flight. */
  callId: string;
  /** The caller's opaque tag given to `callTool` (a gateway puts its upstream session id here). */
  tag?: string;
}

const scope = new AsyncLocalStorage<CallRef>();
const inFlight = new WeakMap<object, Set<CallRef>>();

/** Runs `fn` (the wire call) as `ref`, registered as in flight on `connection` until it settles. */
export async function runAsCall<T>(connection: object, ref: CallRef, fn: () => Promise<T>): Promise<T> {
  let set = inFlight.get(connection);
  if (!set) inFlight.set(connection, (set = new Set()));
  set.add(ref);
  try {
    return await scope.run(ref, fn);
  } finally {
    set.delete(ref);
  }
}

/** The call an input request arriving on `connection` belongs to, if it can be known (see module doc). */
export function attributeCall(connection: object, era: 'legacy' | 'modern'): CallRef | undefined {
  if (era === 'modern') {
    const s = scope.getStore();
    if (s) return s;
  }
  const set = inFlight.get(connection);
  if (!set || set.size === 0) return undefined;
  if (set.size === 1) return set.values().next().value;
  const all = [...set];
  const tag = all[0].tag;
  if (tag === undefined || all.some((c) => c.tag !== tag)) return undefined;
  return { tool: `one of: ${[...new Set(all.map((c) => c.tool))].join(', ')}`, callId: '', tag };
}

/**
 * The toolkit's `requestState` (revision 2026-07-28, protocol.md §6.3), sealed with the SDK's request-state
 * codec (`createRequestStateCodec`): HMAC-SHA256 with the `Shared` key, an expiry (the server's
 * `requestStateTtlMs`), and a binding to the authenticated user (the codec's `bind`, kept in the state as a
 * keyed tag, not as the user id). The payload names the tool and a digest of the call's arguments; both are
 * compared after the codec has verified the state. Signed, not encrypted: never put secrets in it.
 * Wire form (the SDK's): `v1.<base64url({p, exp, b})>.<base64url(mac)>`.
 * @module
 */
import { createHash } from 'node:crypto';
import { createRequestStateCodec } from '@modelcontextprotocol/server';
import type { RequestStateCodec, ServerContext } from '@modelcontextprotocol/server';
import { userOf } from './era.js';

/** What a sealed state carries. `a` holds the answers recorded so far, keyed like `inputRequests`. */
export interface StatePayload {
  /** Tool name the state was minted for. */
  t: string;
  /** Digest of the call's arguments (see `argsDigest`). */
  d: string;
  /** Recorded answers, keyed `e0`, `r1`, … */
  a: Record<string, unknown>;
  /** Keys asked in the round that minted this state (only these are read from `inputResponses`). */
  p: string[];
  /** Re-ask counts per key after invalid answers. */
  n?: Record<string, number>;
  /** Stable ids per URL-mode key (`elicitationId` correlation on 2026-07-28). */
  ids?: Record<string, string>;
  /**
   * What `ctx.config` (`c<n>`: the cached values it started from) and `ctx.resetConfig` (`x<n>`: done)
   * saw in the first round that reached them, so every round of one call reads the same configuration.
   */
  c?: Record<string, unknown>;
  /** The method each key of `p` was asked with (`elicitation/create`, `roots/list`, `sampling/createMessage`). */
  m?: Record<string, string>;
}

/**
 * Why a state was refused: the codec's reasons (`malformed`, `mac`, `expired`, and `user` for its `bind`
 * check), then the payload's bindings (`tool`, `arguments`).
 */
export type StateRefusal = 'malformed' | 'mac' | 'expired' | 'user' | 'tool' | 'arguments';

/**
 * SHA-256 (base64url, 43 characters) of the canonical JSON of a tool call's arguments (`args` absent
 * counts as `{}`): object keys sorted (UTF-16 code unit order) at every level, `undefined` members dropped,
 * no whitespace, so the digest does not depend on key order. Written with an explicit stack, not
 * recursion: arguments from a hostile client may nest arbitrarily deep, and time and memory stay linear
 * in their JSON size (bounded by the transport's message cap). The toolkit and the gateway bind their
 * 2026-07-28 `requestState` to it (basic/patterns/mrtr §Security Considerations).
 */
export function argsDigest(args: unknown): string {
  const hash = createHash('sha256');
  let buf = '';
  const out = (s: string) => {
    buf += s;
    if (buf.length >= 65_536) {
      hash.update(buf);
      buf = '';
    }
  };
  // Work items: a string is written as is; `{ v }` is a value still to be written.
  const stack: Array<string | { v: unknown }> = [{ v: args ?? {} }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item === 'string') {
      out(item);
      continue;
    }
    const v = item.v;
    if (v === null || typeof v !== 'object') {
      out(JSON.stringify(v) ?? 'null');
    } else if (Array.isArray(v)) {
      out('[');
      stack.push(']');
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ v: v[i] === undefined ? null : v[i] });
        if (i > 0) stack.push(',');
      }
    } else {
      const obj = v as Record<string, unknown>;
      const keys = Object.keys(obj)
        .filter((k) => obj[k] !== undefined)
        .sort();
      out('{');
      stack.push('}');
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push({ v: obj[keys[i]] });
        stack.push(`${JSON.stringify(keys[i])}:`);
        if (i > 0) stack.push(',');
      }
    }
  }
  hash.update(buf);
  return hash.digest('base64url');
}

/**
 * The SDK codec for one key and lifetime, bound to the request's user (`userOf`: `sub`, else client id,
 * else '').
 * @param key at least 32 bytes (a string is UTF-8 encoded). @throws RangeError for a shorter key.
 * @param ttlMs lifetime of a minted state, ms (the codec counts whole seconds since the epoch).
 */
export function stateCodec(key: Uint8Array | string, ttlMs: number): RequestStateCodec<StatePayload> {
  return createRequestStateCodec<StatePayload>({ key, ttlSeconds: ttlMs / 1000, bind: (ctx) => userOf(ctx) });
}

const REASONS = new Set(['malformed', 'mac', 'expired']);

/**
 * Verifies an echoed state with the codec (MAC, expiry, user), then its tool and arguments digest.
 * Returns the payload, or why it was refused. Never throws.
 */
export async function openState(
  codec: RequestStateCodec<StatePayload>,
  state: string,
  ctx: ServerContext,
  expect: { tool: string; digest: string },
): Promise<StatePayload | StateRefusal> {
  let p: StatePayload;
  try {
    p = await codec.verify(state, ctx);
  } catch (e) {
    const reason = (e as Error).message;
    return REASONS.has(reason) ? (reason as StateRefusal) : reason === 'bind' ? 'user' : 'malformed';
  }
  if (!p || typeof p !== 'object' || !Array.isArray(p.p)) return 'malformed';
  if (p.t !== expect.tool) return 'tool';
  if (p.d !== expect.digest) return 'arguments';
  return p;
}

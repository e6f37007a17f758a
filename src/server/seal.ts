/**
 * Sealed `requestState` (revision 2026-07-28, protocol.md §6.3): HMAC-SHA256 over the JSON payload, with a
 * TTL and bindings to the tool name, a digest of the arguments and the authenticated user. Signed, not
 * encrypted: never put secrets in it. Wire form: `p1.<base64url(json)>.<base64url(mac)>`.
 * @module
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a sealed state carries. `a` holds the answers recorded so far, keyed like `inputRequests`. */
export interface StatePayload {
  /** Tool name the state was minted for. */
  t: string;
  /** Digest of the call's arguments (see `argsDigest`). */
  d: string;
  /** Authenticated user (`sub`/client id) or '' when unknown. */
  u: string;
  /** Expiry, ms since epoch. */
  exp: number;
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

/** Canonical JSON (sorted keys) so the digest does not depend on key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as any)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** SHA-256 (base64url) of the canonical JSON of a tool call's arguments. */
export function argsDigest(args: unknown): string {
  return createHash('sha256')
    .update(canonical(args ?? {}))
    .digest('base64url');
}

/** Seals and opens request states with one key. */
export class StateSealer {
  private readonly key: Buffer;
  /** @param key at least 32 bytes; random per process when omitted. */
  constructor(key?: Uint8Array | string) {
    this.key = key === undefined ? randomBytes(32) : Buffer.from(key);
    if (this.key.length < 32) throw new RangeError('requestStateKey must be at least 32 bytes');
  }
  seal(p: StatePayload): string {
    const body = Buffer.from(JSON.stringify(p)).toString('base64url');
    return `p1.${body}.${createHmac('sha256', this.key).update(body).digest('base64url')}`;
  }
  /**
   * Opens a state and checks every binding. Returns the payload, or a reason string
   * (`malformed`, `mac`, `expired`, `tool`, `arguments`, `user`) on failure.
   */
  open(state: string, expect: { tool: string; digest: string; user: string; now: number }): StatePayload | string {
    const [v, body, mac] = state.split('.');
    if (v !== 'p1' || !body || !mac) return 'malformed';
    const want = createHmac('sha256', this.key).update(body).digest();
    const got = Buffer.from(mac, 'base64url');
    if (got.length !== want.length || !timingSafeEqual(got, want)) return 'mac';
    let p: StatePayload;
    try {
      p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      return 'malformed';
    }
    if (typeof p?.exp !== 'number' || p.exp < expect.now) return 'expired';
    if (p.t !== expect.tool) return 'tool';
    if (p.d !== expect.digest) return 'arguments';
    if (p.u !== expect.user) return 'user';
    return p;
  }
}

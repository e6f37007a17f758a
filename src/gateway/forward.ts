/**
 * Cross-replica resume of a 2026-07-28 round. The sealed `requestState`
 * (gateway.ts) names the replica that parks the call and its loopback MCP URL; a retry that lands on
 * another replica is sent on to that URL as the same `tools/call`, by an SDK v2 client that
 * authenticates as the original caller with a short-lived proof signed by the shared secret
 * (`x-parley-forward`): the caller's space key, user and tenant as this replica authenticated them (a
 * static token, or an OAuth access token it verified), bound to the receiving replica's URL. The bearer
 * token itself never travels. Nothing else is trusted: the URL comes from a state only holders of the
 * secret can mint, and must be loopback http.
 * @module
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { AuthInfo, CallToolResult } from '@modelcontextprotocol/client';
import { DEFAULT_TENANT } from './users.js';

/**
 * Header carrying a forwarded caller's identity: `<base64url JSON {k,u,t}>.<exp seconds>.<hmac>`, the HMAC
 * (SHA-256 under the shared secret) covering the identity, the expiry and the receiving replica's URL.
 */
export const FORWARD_HEADER = 'x-parley-forward';
/** Lifetime of one forwarding proof, seconds. */
export const FORWARD_PROOF_TTL_S = 30;
/** Longest identity part of a proof, base64url characters (user and tenant are ≤ 256 characters each). */
export const MAX_PROOF_IDENTITY_CHARS = 8192;

/**
 * Who a forwarded request is: the space key (`extra.sub`), the user and the tenant, as the forwarding
 * replica authenticated them (a static token, or an OAuth access token it verified).
 */
export interface ForwardedIdentity {
  key: string;
  user: string;
  tenant: string;
}

/**
 * The identity to vouch for: `key` (the caller's space key, `extra.sub`) with the user and tenant of the
 * request's `AuthInfo` (an OAuth user's claims; a static user is its key in tenant `default`).
 */
export function forwardedIdentity(a: AuthInfo | undefined, key: string): ForwardedIdentity {
  const x = a?.extra as { user?: unknown; tenant?: unknown } | undefined;
  const name = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  return { key, user: name(x?.user) ?? key, tenant: name(x?.tenant) ?? DEFAULT_TENANT };
}

const mac = (secret: string | Uint8Array, body: string, exp: number, audience: string) =>
  createHmac('sha256', secret).update(`parley.forward.v2\n${audience}\n${body}\n${exp}`).digest('base64url');

/**
 * A proof that this replica forwards a request of `who` to the replica at `audience` (its MCP URL), valid
 * {@link FORWARD_PROOF_TTL_S} s. Only replicas holding the secret can make one; the client never sees it.
 */
export function forwardProof(secret: string | Uint8Array, who: ForwardedIdentity, audience: string, now = Date.now()): string {
  const exp = Math.floor(now / 1000) + FORWARD_PROOF_TTL_S;
  const body = Buffer.from(JSON.stringify({ k: who.key, u: who.user, t: who.tenant }), 'utf8').toString('base64url');
  return `${body}.${exp}.${mac(secret, body, exp, audience)}`;
}

/**
 * The identity a valid, unexpired proof made for `audience` (this replica's MCP URL) names, else
 * `undefined` (malformed, another secret, another audience, expired, or an identity part over
 * {@link MAX_PROOF_IDENTITY_CHARS}).
 */
export function checkForwardProof(
  secret: string | Uint8Array,
  header: string | undefined,
  audience: string,
  now = Date.now(),
): ForwardedIdentity | undefined {
  if (!header || header.length > MAX_PROOF_IDENTITY_CHARS + 64) return undefined;
  const m = /^([A-Za-z0-9_-]+)\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(header);
  if (!m || m[1].length > MAX_PROOF_IDENTITY_CHARS) return undefined;
  const exp = Number(m[2]);
  if (exp < Math.floor(now / 1000)) return undefined;
  const want = Buffer.from(mac(secret, m[1], exp, audience)),
    got = Buffer.from(m[3]);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return undefined;
  try {
    const v = JSON.parse(Buffer.from(m[1], 'base64url').toString('utf8')) as Record<string, unknown>;
    const ok = (x: unknown): x is string => typeof x === 'string' && x.length > 0;
    return ok(v.k) && ok(v.u) && ok(v.t) ? { key: v.k, user: v.u, tenant: v.t } : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `url` is an http URL on a loopback address (the only forwarding targets). */
export function isLoopbackUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' && (u.hostname === '127.0.0.1' || u.hostname === '[::1]' || u.hostname === 'localhost');
  } catch {
    return false;
  }
}

export interface ForwardCall {
  url: string;
  /** The caller as this replica authenticated them (carried in the proof, never the bearer token). */
  identity: ForwardedIdentity;
  secret: string | Uint8Array;
  name: string;
  args: Record<string, unknown>;
  inputResponses: unknown;
  requestState: string;
  /** The upstream client's elicitation modes, declared again to the owner. */
  modes: { form: boolean; url: boolean };
  signal: AbortSignal;
  /** Bound on the forwarded call, ms (the owner waits at most its park TTL for the next round). */
  timeoutMs: number;
}

/**
 * Sends one retry to the owner replica and returns its result as-is (a result, or the next
 * `input_required` round with a state the owner sealed).
 * @throws Error naming the owner's URL when it cannot be reached (e.g. the replica died)
 */
export async function forwardRetry(f: ForwardCall): Promise<CallToolResult> {
  const elicitation = { ...(f.modes.form ? { form: {} } : {}), ...(f.modes.url ? { url: {} } : {}) };
  const c = new Client({ name: 'parley-replica', version: '0.1.0' }, {
    capabilities: (f.modes.form || f.modes.url ? { elicitation } : {}) as never,
    versionNegotiation: { mode: 'auto' },
    inputRequired: { autoFulfill: false },
  } as never);
  const proof = forwardProof(f.secret, f.identity, f.url);
  try {
    // The connect (version discovery) honours the signal too: a hung owner must not hold the retry.
    const aborted = new Promise<never>((_, reject) => {
      const fail = () => reject(f.signal.reason ?? new Error('aborted'));
      if (f.signal.aborted) fail();
      else f.signal.addEventListener('abort', fail, { once: true });
    });
    aborted.catch(() => undefined);
    await Promise.race([
      c.connect(new StreamableHTTPClientTransport(new URL(f.url), { requestInit: { headers: { [FORWARD_HEADER]: proof } } })),
      aborted,
    ]);
    return (await c.callTool(
      { name: f.name, arguments: f.args, inputResponses: f.inputResponses, requestState: f.requestState } as never,
      { allowInputRequired: true, signal: f.signal, timeout: f.timeoutMs } as never,
    )) as CallToolResult;
  } finally {
    await c.close().catch(() => undefined);
  }
}

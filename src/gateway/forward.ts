/**
 * Cross-replica resume of a 2026-07-28 round (issue 13 item 4). The sealed `requestState`
 * (gateway.ts) names the replica that parks the call and its loopback MCP URL; a retry that lands on
 * another replica is sent on to that URL as the same `tools/call`, by an SDK v2 client that
 * authenticates as the original caller with a short-lived proof signed by the shared secret
 * (`x-parley-forward`). Nothing else is trusted: the URL comes from a state only holders of the secret
 * can mint, and must be loopback http.
 * @module
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';

/** Header carrying a forwarded caller's identity: `<base64url identity>.<exp seconds>.<hmac>`. */
export const FORWARD_HEADER = 'x-parley-forward';
/** Lifetime of one forwarding proof, seconds. */
export const FORWARD_PROOF_TTL_S = 30;

const mac = (secret: string | Uint8Array, identity: string, exp: number) =>
  createHmac('sha256', secret).update(`parley.forward:${identity}:${exp}`).digest('base64url');

/** A proof that this replica forwards a request of `identity` (valid {@link FORWARD_PROOF_TTL_S} s). */
export function forwardProof(secret: string | Uint8Array, identity: string, now = Date.now()): string {
  const exp = Math.floor(now / 1000) + FORWARD_PROOF_TTL_S;
  return `${Buffer.from(identity, 'utf8').toString('base64url')}.${exp}.${mac(secret, identity, exp)}`;
}

/** The identity a valid, unexpired proof names, else `undefined`. */
export function checkForwardProof(secret: string | Uint8Array, header: string | undefined, now = Date.now()): string | undefined {
  const m = /^([A-Za-z0-9_-]{1,400})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(header ?? '');
  if (!m) return undefined;
  const identity = Buffer.from(m[1], 'base64url').toString('utf8');
  const exp = Number(m[2]);
  if (exp < Math.floor(now / 1000)) return undefined;
  const want = Buffer.from(mac(secret, identity, exp)),
    got = Buffer.from(m[3]);
  return want.length === got.length && timingSafeEqual(want, got) ? identity : undefined;
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
  identity: string;
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
  const proof = forwardProof(f.secret, f.identity);
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

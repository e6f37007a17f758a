/**
 * 2025-era session ids that name their owner (issue 13 item 4): `ps1.<payload>.<nonce>.<mac>`, where
 * `<payload>` is base64url JSON `{r: replica id, a: the replica's loopback MCP URL}`, `<nonce>` 16 random
 * bytes and `<mac>` the first 16 bytes of HMAC-SHA256 under the replicas' shared secret
 * (`PARLEY_SECRET`), all base64url. Any replica can tell which replica holds a session and where to reach
 * it without a lookup; only holders of the secret can mint one, so a client cannot point a replica at an
 * address of its choosing. Signed, not encrypted: the owner's id and URL are readable. At most
 * {@link MAX_SESSION_ID_CHARS} characters, visible ASCII as the Streamable HTTP transport requires
 * (basic/transports §Session Management).
 * @module
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The owner a sealed session id names. */
export interface SessionOwner {
  /** The owning replica's id (a fresh UUID per process unless configured). */
  replica: string;
  /** Its MCP URL, `http://127.0.0.1:<port>/mcp`. */
  url: string;
}

/** Longest session id {@link openSessionId} reads; longer input is refused before any parsing. */
export const MAX_SESSION_ID_CHARS = 512;

const mac = (secret: string | Uint8Array, body: string) =>
  createHmac('sha256', secret).update(`parley.session:${body}`).digest().subarray(0, 16).toString('base64url');

/** A new session id owned by `owner`, sealed with `secret`. */
export function sealSessionId(secret: string | Uint8Array, owner: SessionOwner): string {
  const payload = Buffer.from(JSON.stringify({ r: owner.replica, a: owner.url }), 'utf8').toString('base64url');
  const body = `ps1.${payload}.${randomBytes(16).toString('base64url')}`;
  return `${body}.${mac(secret, body)}`;
}

/** The owner of a session id {@link sealSessionId} made with the same secret, else `undefined` (any other id). */
export function openSessionId(secret: string | Uint8Array, sid: string): SessionOwner | undefined {
  if (sid.length > MAX_SESSION_ID_CHARS) return undefined;
  const m = /^(ps1\.([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})$/.exec(sid);
  if (!m) return undefined;
  const want = Buffer.from(mac(secret, m[1])),
    got = Buffer.from(m[3]);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return undefined;
  try {
    const p = JSON.parse(Buffer.from(m[2], 'base64url').toString('utf8')) as { r?: unknown; a?: unknown };
    return typeof p.r === 'string' && typeof p.a === 'string' ? { replica: p.r, url: p.a } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Bearer-token identities for `parley serve --http` (parley.json `gateway.users`). Tokens are stored
 * only as SHA-256 hashes; a presented token is hashed and compared in constant time.
 * @module
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** SHA-256 of a token, lowercase hex. */
export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** A new random token (32 bytes, base64url) and its hash for the configuration. */
export function newToken(): { token: string; tokenSha256: string } {
  const token = `pt_${randomBytes(32).toString('base64url')}`;
  return { token, tokenSha256: hashToken(token) };
}

/**
 * Resolves an `Authorization` header to a user name, or `undefined` when the header is missing,
 * malformed or matches no user. Compares every configured hash (constant time per hash).
 */
export function userForAuthorization(header: string | undefined, users: Record<string, { tokenSha256: string }>): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!m) return undefined;
  const got = Buffer.from(hashToken(m[1]), 'hex');
  let found: string | undefined;
  for (const [user, { tokenSha256 }] of Object.entries(users)) {
    const want = Buffer.from(tokenSha256, 'hex');
    if (want.length === got.length && timingSafeEqual(want, got) && found === undefined) found = user;
  }
  return found;
}

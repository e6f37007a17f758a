/**
 * Bearer-token identities for `parley serve --http` (parley.json `gateway.users`). Tokens are stored
 * only as SHA-256 hashes; a presented token is hashed and compared in constant time. Users of
 * `gateway.tenants.<t>.users` belong to tenant `<t>`; an identity is `"<user>"` in tenant `default` and
 * `"<tenant>/<user>"` elsewhere (neither name may contain `/`).
 * @module
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { GatewayDef } from '../host/config/index.js';

/** The tenant of `gateway.users` (and of single-user mode). */
export const DEFAULT_TENANT = 'default';

/** An identity string for (tenant, user): `user` in the default tenant, else `tenant/user`. */
export const identityKey = (tenant: string, user: string): string => (tenant === DEFAULT_TENANT ? user : `${tenant}/${user}`);

/** Splits an identity made by {@link identityKey} into tenant and user. */
export function parseIdentity(id: string): { tenant: string; user: string } {
  const i = id.indexOf('/');
  return i < 0 ? { tenant: DEFAULT_TENANT, user: id } : { tenant: id.slice(0, i), user: id.slice(i + 1) };
}

/** Every configured user as identity → token hash (`gateway.users` and each tenant's users). */
export function gatewayIdentities(g: GatewayDef | undefined): Record<string, { tokenSha256: string }> {
  const out: Record<string, { tokenSha256: string }> = { ...(g?.users ?? {}) };
  for (const [t, def] of Object.entries(g?.tenants ?? {})) for (const [u, v] of Object.entries(def.users)) out[identityKey(t, u)] = v;
  return out;
}

/** SHA-256 of a token, lowercase hex. */
export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** A new random token (32 bytes, base64url) and its hash for the configuration. */
export function newToken(): { token: string; tokenSha256: string } {
  const token = `pt_${randomBytes(32).toString('base64url')}`;
  return { token, tokenSha256: hashToken(token) };
}

/**
 * Resolves an `Authorization` header to an identity (see {@link gatewayIdentities}), or `undefined` when the header is missing,
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

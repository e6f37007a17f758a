/**
 * The gateway as an OAuth protected resource (MCP authorization, 2025-06-18 and later §Authorization;
 * RFC 9728, RFC 8707, RFC 6750 §3, RFC 7662). Accepts, besides the static tokens of `gateway.users`,
 * access tokens of one configured issuer: JWTs checked against the issuer's JWKS (`jose`), or any token
 * checked by token introspection. The SDK's `verifyBearerToken` applies the audience (resource), scope
 * and expiry rules and `bearerAuthChallengeResponse` builds the 401/403 answers; this module supplies
 * the verifier, the claims → user/tenant mapping and the metadata document.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify } from 'jose';
import type { JWTPayload } from 'jose';
import { LRUCache } from 'lru-cache';
import {
  bearerAuthChallengeResponse,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import type { AuthInfo, OAuthProtectedResourceMetadata } from '@modelcontextprotocol/server';
import { discoverAuthorizationServerMetadata } from '@modelcontextprotocol/client';
import type { GatewayOAuthDef, Store } from '../host/index.js';
import { HttpDenial } from '../server/serve.js';
import { hashToken, userForAuthorization } from './users.js';

/** Bound on one request to the issuer (metadata, JWKS, introspection), ms. */
export const ISSUER_FETCH_MS = 5000;
/** Introspection answers kept, by token hash, at most this long (and never past the token's `exp`), ms. */
export const INTROSPECTION_CACHE_MS = 30_000;
/** Introspection cache entries. */
export const INTROSPECTION_CACHE_MAX = 10_000;
/** Longest user or tenant claim value accepted, characters. */
export const MAX_CLAIM_CHARS = 256;
/**
 * How long a replica trusts its last look at a token's sign-in in the store, ms: a revocation made on
 * another replica refuses the token there within this bound (at once on the replica that revoked it).
 */
export const SIGN_IN_RECHECK_MS = 5_000;

/** Who a request is: the space key (`extra.sub`), the user and the tenant. */
export interface Identity {
  /** The gateway's key for the user's space: `user`, or `<encodeURIComponent(tenant)>/<user>` with a tenant claim. */
  key: string;
  user: string;
  tenant: string;
}

/** The identity an `AuthInfo` from {@link ResourceGuard.authenticate} carries. */
export function identityOf(a: AuthInfo | undefined): Identity | undefined {
  const x = a?.extra as { sub?: unknown; user?: unknown; tenant?: unknown } | undefined;
  if (typeof x?.sub !== 'string' || !x.sub) return undefined;
  return { key: x.sub, user: typeof x.user === 'string' ? x.user : x.sub, tenant: typeof x.tenant === 'string' ? x.tenant : 'default' };
}

const invalid = (message: string) => new OAuthError(OAuthErrorCode.InvalidToken, message);
const sameUrl = (a: string, b: string) => a.replace(/#.*$/, '').replace(/\/$/, '') === b.replace(/#.*$/, '').replace(/\/$/, '');
const timed = (input: string | URL | Request, init?: RequestInit) =>
  fetch(input, { ...init, signal: AbortSignal.timeout(ISSUER_FETCH_MS) });

/** A claim value usable as a user or tenant name: a string of 1-256 characters without control characters. */
function claimValue(payload: Record<string, unknown>, name: string, what: string): string {
  const v = payload[name];
  if (typeof v !== 'string' || v.length === 0 || v.length > MAX_CLAIM_CHARS || /[\u0000-\u001f\u007f]/.test(v)) {
    throw invalid(`the token's ${name} claim (the ${what}) is missing or not a name of 1-${MAX_CLAIM_CHARS} printable characters`);
  }
  return v;
}

export interface ResourceGuardOptions {
  /** `gateway.oauth` (absent: static tokens only). */
  oauth?: GatewayOAuthDef;
  /** `gateway.users`: static bearer tokens by SHA-256. */
  users: Record<string, { tokenSha256: string }>;
  /** The served MCP URL, e.g. `http://127.0.0.1:8765/mcp`; the resource when `oauth.resource` is unset. */
  servedUrl: string;
  /** Environment for `introspection.clientSecretEnv`. @default process.env */
  env?: Record<string, string | undefined>;
  /**
   * Where OAuth sign-ins are recorded and revoked (`Store.recordSignIn`; src/gateway/admin.ts lists and
   * revokes them). Without it (or without that method) nothing is recorded and nothing can be revoked.
   */
  store?: Store;
}

/**
 * Checks every request to the HTTP gateway and serves the RFC 9728 metadata. `authenticate` returns
 * the `AuthInfo` of a static user or a verified OAuth token, and throws an `HttpDenial` (401 with
 * `WWW-Authenticate: Bearer resource_metadata="…"`, plus `error="invalid_token"` for a bad token; 403
 * `insufficient_scope`; 500 when the issuer cannot be reached within {@link ISSUER_FETCH_MS}) otherwise.
 */
export class ResourceGuard {
  /** The resource URL tokens must name as audience. */
  readonly resource: URL;
  /** Where the metadata document is: `<origin>/.well-known/oauth-protected-resource<path>`. */
  readonly metadataUrl: string;
  private readonly oauth: GatewayOAuthDef | undefined;
  private readonly users: Record<string, { tokenSha256: string }>;
  private readonly env: Record<string, string | undefined>;
  private issuerMeta: Promise<Record<string, unknown>> | undefined;
  private jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  private readonly introspected = new LRUCache<string, AuthInfo>({ max: INTROSPECTION_CACHE_MAX, ttl: INTROSPECTION_CACHE_MS });
  private readonly store: Store | undefined;
  /** Tokens (by hash) whose sign-in the store accepted in the last {@link SIGN_IN_RECHECK_MS}. */
  private readonly signedIn = new LRUCache<string, { tenant: string; subject: string }>({
    max: INTROSPECTION_CACHE_MAX,
    ttl: SIGN_IN_RECHECK_MS,
  });

  constructor(o: ResourceGuardOptions) {
    this.oauth = o.oauth;
    this.users = o.users;
    this.env = o.env ?? process.env;
    this.store = o.store;
    this.resource = new URL(o.oauth?.resource ?? o.servedUrl);
    this.metadataUrl = getOAuthProtectedResourceMetadataUrl(this.resource);
  }

  /** The RFC 9728 document. */
  metadata(): OAuthProtectedResourceMetadata {
    return {
      resource: this.resource.href,
      authorization_servers: this.oauth ? [this.oauth.issuer] : [],
      bearer_methods_supported: ['header'],
      ...(this.oauth?.scopes.length ? { scopes_supported: this.oauth.scopes } : {}),
      resource_name: 'parley gateway',
    } as OAuthProtectedResourceMetadata;
  }

  /**
   * Answers `/.well-known/oauth-protected-resource` and its path-suffixed form (RFC 9728 §3.1) with the
   * document; `undefined` for any other path or when no issuer is configured.
   */
  route(pathname: string, req: IncomingMessage): HttpDenial | undefined {
    if (!this.oauth) return undefined;
    const suffixed = new URL(this.metadataUrl).pathname;
    if (pathname !== '/.well-known/oauth-protected-resource' && pathname !== suffixed) return undefined;
    const cors = { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, OPTIONS' };
    if (req.method === 'OPTIONS') return new HttpDenial(204, cors, '');
    if (req.method !== 'GET') return new HttpDenial(405, { ...cors, allow: 'GET, OPTIONS' }, '');
    return new HttpDenial(
      200,
      { ...cors, 'content-type': 'application/json', 'cache-control': 'max-age=300' },
      JSON.stringify(this.metadata()),
    );
  }

  /** The challenge of a request without credentials (RFC 6750 §3.1: no error code). */
  get challenge(): string {
    const scope = this.oauth?.scopes.length ? `, scope="${this.oauth.scopes.join(' ')}"` : '';
    return this.oauth ? `Bearer resource_metadata="${this.metadataUrl}"${scope}` : 'Bearer';
  }

  /** The request's identity, or `undefined` (no credentials) / an `HttpDenial` thrown (bad credentials). */
  async authenticate(req: IncomingMessage): Promise<AuthInfo | undefined> {
    const header = req.headers.authorization;
    const user = userForAuthorization(header, this.users);
    if (user) return { token: 'static', clientId: user, scopes: [], extra: { sub: user, user, tenant: 'default' } };
    if (!this.oauth || !header) return undefined;
    const o = {
      verifier: { verifyAccessToken: async (t: string) => this.signIn(t, await this.verify(t)) },
      expectedResource: this.resource,
      requiredScopes: this.oauth.scopes,
      resourceMetadataUrl: this.metadataUrl,
    };
    try {
      return await verifyBearerToken(header, o);
    } catch (e) {
      const r = bearerAuthChallengeResponse(e, o);
      const headers: Record<string, string> = {};
      r.headers.forEach((v, k) => (headers[k] = v));
      throw new HttpDenial(r.status, headers, await r.text());
    }
  }

  /**
   * Forgets this replica's recent sign-in checks of `subject` in `tenant`, so the next request with one
   * of its tokens asks the store again (after an administrator revoked it here).
   */
  forgetSignIn(tenant: string, subject: string): void {
    for (const [k, v] of this.signedIn.entries()) if (v.tenant === tenant && v.subject === subject) this.signedIn.delete(k);
  }

  /**
   * Records a verified token's use in the store (`Store.recordSignIn`, at most once per
   * {@link SIGN_IN_RECHECK_MS} per token on this replica) and refuses it when a tenant administrator
   * revoked its sign-in after it was issued. @throws OAuthError
   */
  private async signIn(token: string, info: AuthInfo): Promise<AuthInfo> {
    const store = this.store;
    if (!store?.recordSignIn) return info;
    const key = hashToken(token);
    if (this.signedIn.has(key)) return info;
    const x = info.extra as { user: string; tenant: string; subject: string; issuedAt?: number };
    let ok: boolean;
    try {
      ok = await store.recordSignIn({
        tenant: x.tenant,
        issuer: this.oauth!.issuer,
        subject: x.subject,
        user: x.user,
        at: Date.now(),
        ...(info.expiresAt !== undefined ? { expiresAt: info.expiresAt * 1000 } : {}),
        ...(x.issuedAt !== undefined ? { issuedAt: x.issuedAt } : {}),
      });
    } catch (e) {
      throw new OAuthError(OAuthErrorCode.ServerError, `cannot check the sign-in in the store: ${(e as Error).message}`);
    }
    if (!ok)
      throw invalid(
        `the sign-in of "${x.subject}" in tenant "${x.tenant}" was revoked by a tenant administrator; sign in again to get a new token`,
      );
    const left = info.expiresAt !== undefined ? info.expiresAt * 1000 - Date.now() : SIGN_IN_RECHECK_MS;
    this.signedIn.set(key, { tenant: x.tenant, subject: x.subject }, { ttl: Math.max(1, Math.min(SIGN_IN_RECHECK_MS, left)) });
    return info;
  }

  /** Verifies one access token (the SDK's `OAuthTokenVerifier`). @throws OAuthError */
  private async verify(token: string): Promise<AuthInfo> {
    const o = this.oauth!;
    if (o.introspection) return this.introspect(token);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, await this.keys(), {
        issuer: o.issuer,
        algorithms: o.algorithms,
        clockTolerance: o.clockSkewMs / 1000,
        requiredClaims: ['exp'],
      }));
    } catch (e) {
      if (e instanceof OAuthError) throw e;
      if (e instanceof joseErrors.JWTExpired) throw invalid('the token has expired');
      if (e instanceof joseErrors.JWTClaimValidationFailed) throw invalid(`the token's ${e.claim} claim is not acceptable (${e.reason})`);
      if (e instanceof joseErrors.JWKSTimeout || e instanceof joseErrors.JWKSInvalid)
        throw new OAuthError(OAuthErrorCode.ServerError, `cannot read the issuer's keys: ${(e as Error).message}`);
      if (e instanceof joseErrors.JOSEError) throw invalid(`the token is not a valid JWT of ${o.issuer} (${e.code})`);
      throw new OAuthError(OAuthErrorCode.ServerError, `cannot verify the token: ${(e as Error).message}`);
    }
    return this.toAuthInfo(token, payload as Record<string, unknown>);
  }

  /** RFC 7662: POST the token to the introspection endpoint (client_secret_basic); caches active answers. */
  private async introspect(token: string): Promise<AuthInfo> {
    const key = hashToken(token);
    const hit = this.introspected.get(key);
    if (hit && (hit.expiresAt ?? 0) * 1000 > Date.now()) return hit;
    const o = this.oauth!;
    const i = o.introspection!;
    const endpoint = i.endpoint ?? (await this.meta()).introspection_endpoint;
    if (typeof endpoint !== 'string')
      throw new OAuthError(
        OAuthErrorCode.ServerError,
        `${o.issuer} advertises no introspection_endpoint; set gateway.oauth.introspection.endpoint`,
      );
    const secret = i.clientSecretEnv ? (this.env[i.clientSecretEnv] ?? '') : '';
    let body: Record<string, unknown>;
    try {
      const res = await timed(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(i.clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`,
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
      });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      body = (await res.json()) as Record<string, unknown>;
    } catch (e) {
      throw new OAuthError(OAuthErrorCode.ServerError, `token introspection at ${endpoint} failed: ${(e as Error).message}`);
    }
    if (body.active !== true) throw invalid('the token is not active (introspection)');
    if (body.iss !== undefined && body.iss !== o.issuer) throw invalid(`the token was issued by ${String(body.iss)}, not ${o.issuer}`);
    if (typeof body.exp !== 'number') throw invalid('the introspection answer has no exp');
    if (typeof body.nbf === 'number' && body.nbf * 1000 > Date.now() + o.clockSkewMs) throw invalid('the token is not valid yet');
    const info = this.toAuthInfo(token, body);
    this.introspected.set(key, info, { ttl: Math.max(1, Math.min(INTROSPECTION_CACHE_MS, (body.exp as number) * 1000 - Date.now())) });
    return info;
  }

  /** Claims → `AuthInfo`: the audience that names this resource (else the first), scopes, expiry, identity. */
  private toAuthInfo(token: string, p: Record<string, unknown>): AuthInfo {
    const o = this.oauth!;
    const aud = (Array.isArray(p.aud) ? p.aud : [p.aud]).filter((a): a is string => typeof a === 'string');
    const named = aud.find((a) => URL.canParse(a) && sameUrl(a, this.resource.href)) ?? aud[0];
    const user = claimValue(p, o.userClaim, 'user');
    // A space is `<tenant>/<user>` inside the gateway (./users.ts): a user claim `acme/alice` without a
    // tenant claim would be static user alice of tenant acme. User names never hold `/`, like static ones.
    if (user.includes('/')) throw invalid(`the token's ${o.userClaim} claim (the user) contains "/", which a user name may not hold`);
    const tenant = o.tenantClaim ? claimValue(p, o.tenantClaim, 'tenant') : 'default';
    const key = o.tenantClaim ? `${encodeURIComponent(tenant)}/${user}` : user;
    const scopes =
      typeof p.scope === 'string'
        ? p.scope.split(' ').filter(Boolean)
        : Array.isArray(p.scp)
          ? p.scp.filter((s): s is string => typeof s === 'string')
          : [];
    const clientId = typeof p.client_id === 'string' ? p.client_id : typeof p.azp === 'string' ? p.azp : user;
    return {
      token,
      clientId,
      scopes,
      expiresAt: p.exp as number,
      ...(named && URL.canParse(named) ? { resource: new URL(named) } : {}),
      // `subject`: the token's `sub` claim (else the user), the key of its sign-in (src/gateway/admin.ts).
      extra: {
        sub: key,
        user,
        tenant,
        issuer: o.issuer,
        subject: typeof p.sub === 'string' && /^[^\u0000-\u001f\u007f]{1,256}$/.test(p.sub) ? p.sub : user,
        ...(typeof p.iat === 'number' ? { issuedAt: p.iat * 1000 } : {}),
      },
    };
  }

  /** The issuer's metadata (OIDC discovery, else RFC 8414), fetched once; a failure is retried next time. */
  private meta(): Promise<Record<string, unknown>> {
    this.issuerMeta ??= discoverAuthorizationServerMetadata(this.oauth!.issuer, { fetchFn: timed }).then((m) => {
      if (!m) throw new Error('no OAuth/OIDC metadata found');
      return m as unknown as Record<string, unknown>;
    });
    return this.issuerMeta.catch((e) => {
      this.issuerMeta = undefined;
      throw new OAuthError(OAuthErrorCode.ServerError, `cannot read the metadata of ${this.oauth!.issuer}: ${(e as Error).message}`);
    });
  }

  private async keys(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    if (this.jwks) return this.jwks;
    const uri = this.oauth!.jwksUri ?? (await this.meta()).jwks_uri;
    if (typeof uri !== 'string')
      throw new OAuthError(OAuthErrorCode.ServerError, `${this.oauth!.issuer} advertises no jwks_uri; set gateway.oauth.jwksUri`);
    this.jwks = createRemoteJWKSet(new URL(uri), { timeoutDuration: ISSUER_FETCH_MS });
    return this.jwks;
  }
}

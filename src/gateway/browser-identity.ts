/**
 * Who is in this browser, for users of `gateway.oauth` (./upstream-signin.ts connect URL;
 * docs/gateway-auth.md §"Browser sign-in"): the gateway signs the browser in to its own issuer with
 * OpenID Connect (authorization code + PKCE S256, `state`, `nonce`) as the client
 * `gateway.oauth.browserClient`, verifies the ID token (signature against the issuer's JWKS, `iss`,
 * `aud` = that client, `exp`, `nonce`, `azp`: when present that client, and present when `aud` names
 * several audiences) and maps its claims (merged with the userinfo answer, whose `sub`
 * must be the ID token's) through the same `userClaim` / `tenantClaim` as access tokens. The sign-in in
 * progress lives in the browser's sealed login cookie (./browser-session.ts), so any replica finishes it.
 * Every request to the issuer is bounded by {@link ISSUER_FETCH_MS}; its token answer is read up to
 * {@link MAX_TOKEN_ANSWER_BYTES}.
 * @module
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { discoverAuthorizationServerMetadata } from '@modelcontextprotocol/client';
import type { GatewayOAuthDef } from '../host/index.js';
import type { HttpDenial } from '../server/serve.js';
import type { BrowserSessions, GatewayPerson } from './browser-session.js';
import { ISSUER_FETCH_MS, MAX_CLAIM_CHARS } from './oauth.js';
import { CONNECT_ID, redirect, reply } from './signin-pages.js';
import type { BrowserSignIn } from './upstream-signin.js';

/** Largest token or userinfo answer read from the issuer, bytes. */
export const MAX_TOKEN_ANSWER_BYTES = 64 * 1024;

const b64 = (b: Buffer) => b.toString('base64url');
const timed = (input: string | URL | Request, init?: RequestInit) =>
  fetch(input, { ...init, signal: AbortSignal.timeout(ISSUER_FETCH_MS) });
const refused = (why: string) =>
  reply(403, 'Sign-in refused', `${why} Open the sign-in link your client showed again, in your own browser. Nothing was stored.`);

/** The answer read up to {@link MAX_TOKEN_ANSWER_BYTES}, parsed as a JSON object; a larger one is cancelled there, unread. */
async function json(res: Response, what: string): Promise<Record<string, unknown>> {
  const parts: Uint8Array[] = [];
  let n = 0;
  if (res.body) {
    const reader = res.body.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      n += r.value.length;
      if (n > MAX_TOKEN_ANSWER_BYTES) {
        await reader.cancel().catch(() => undefined);
        throw new Error(`the ${what} answer is larger than ${MAX_TOKEN_ANSWER_BYTES} bytes`);
      }
      parts.push(r.value);
    }
  }
  const text = Buffer.concat(parts, n).toString('utf8');
  if (!res.ok) throw new Error(`the ${what} endpoint answered HTTP ${res.status}`);
  const v = JSON.parse(text) as unknown;
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error(`the ${what} answer is not a JSON object`);
  return v as Record<string, unknown>;
}

/** A claim usable as a user or tenant name (as for access tokens, ./oauth.ts). */
function name(claims: Record<string, unknown>, claim: string): string | undefined {
  const v = claims[claim];
  return typeof v === 'string' && v.length > 0 && v.length <= MAX_CLAIM_CHARS && !/[\u0000-\u001f\u007f]/.test(v) ? v : undefined;
}

const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * The browser sign-in of `oauth.browserClient`, answering at `identifyUrl`.
 * @param env where `browserClient.clientSecretEnv` is read. @default process.env
 */
export function browserSignIn(
  oauth: GatewayOAuthDef,
  identifyUrl: string,
  env: Record<string, string | undefined> = process.env,
): BrowserSignIn {
  const client = oauth.browserClient!;
  let meta: Promise<Record<string, unknown>> | undefined;
  let jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  const metadata = () => {
    meta ??= discoverAuthorizationServerMetadata(oauth.issuer, { fetchFn: timed }).then((m) => {
      if (!m) throw new Error(`no OpenID/OAuth metadata found at ${oauth.issuer}`);
      return m as unknown as Record<string, unknown>;
    });
    return meta.catch((e) => {
      meta = undefined;
      throw e;
    });
  };
  const endpoint = async (field: string) => {
    const v = (await metadata())[field];
    if (typeof v !== 'string') throw new Error(`${oauth.issuer} advertises no ${field}`);
    return v;
  };

  /** Code → tokens → verified claims → (tenant, user). @throws HttpDenial (refused) or Error (the issuer failed) */
  async function person(code: string, verifier: string, nonce: string): Promise<GatewayPerson> {
    const secret = client.clientSecretEnv ? env[client.clientSecretEnv] : undefined;
    const body = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: identifyUrl, code_verifier: verifier });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (secret)
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
    else body.set('client_id', client.clientId);
    const tokens = await json(await timed(await endpoint('token_endpoint'), { method: 'POST', headers, body }), 'token');
    if (typeof tokens.id_token !== 'string') throw new Error('the token answer has no id_token (is "openid" among the scopes?)');
    jwks ??= createRemoteJWKSet(new URL(oauth.jwksUri ?? (await endpoint('jwks_uri'))), { timeoutDuration: ISSUER_FETCH_MS });
    let claims: Record<string, unknown>;
    try {
      ({ payload: claims } = await jwtVerify(tokens.id_token, jwks, {
        issuer: oauth.issuer,
        audience: client.clientId,
        algorithms: oauth.algorithms,
        clockTolerance: oauth.clockSkewMs / 1000,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (e) {
      throw refused(`The gateway's issuer sent an ID token that does not verify (${(e as { code?: string }).code ?? 'invalid'}).`);
    }
    if (typeof claims.nonce !== 'string' || !same(claims.nonce, nonce))
      throw refused("The ID token is not the answer to this browser's sign-in.");
    // OpenID Connect Core §3.1.3.7: an ID token for several audiences names the party it was issued to
    // (azp), and an azp present must be this client: else it was issued to another client of the issuer.
    const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if ((claims.azp === undefined && audiences.length > 1) || (claims.azp !== undefined && claims.azp !== client.clientId))
      throw refused("The ID token was issued to another client of the gateway's issuer (its azp claim is not this gateway's client).");
    const needed = [oauth.userClaim, ...(oauth.tenantClaim ? [oauth.tenantClaim] : [])];
    const info = (await metadata()).userinfo_endpoint;
    if (needed.some((c) => claims[c] === undefined) && typeof info === 'string' && typeof tokens.access_token === 'string') {
      const more = await json(
        await timed(info, { headers: { authorization: `Bearer ${tokens.access_token}`, accept: 'application/json' } }),
        'userinfo',
      );
      if (more.sub === claims.sub) claims = { ...more, ...claims };
    }
    const user = name(claims, oauth.userClaim);
    const tenant = oauth.tenantClaim ? name(claims, oauth.tenantClaim) : 'default';
    if (!user || !tenant || user.includes('/'))
      throw refused(
        `The gateway's issuer did not name you by the ${needed.join(' and ')} claim${needed.length > 1 ? 's' : ''} the gateway uses.`,
      );
    return { tenant, user };
  }

  return {
    async start(connect: string, sessions: BrowserSessions): Promise<HttpDenial> {
      const verifier = b64(randomBytes(32));
      const state = b64(randomBytes(32));
      const nonce = b64(randomBytes(32));
      const u = new URL(await endpoint('authorization_endpoint'));
      for (const [k, v] of Object.entries({
        response_type: 'code',
        client_id: client.clientId,
        redirect_uri: identifyUrl,
        scope: client.scopes.join(' '),
        state,
        nonce,
        code_challenge: b64(createHash('sha256').update(verifier).digest()),
        code_challenge_method: 'S256',
      }))
        u.searchParams.set(k, v);
      return redirect(u.href, sessions.loginCookie({ state, verifier, nonce, connect }));
    },

    async finish(req: IncomingMessage, sessions: BrowserSessions) {
      const login = sessions.login(req);
      const params = new URL(req.url ?? '', 'http://gateway').searchParams;
      if (!login || !CONNECT_ID.test(login.connect) || !same(params.get('state') ?? '', login.state))
        throw reply(
          400,
          'Sign-in refused',
          'This answer does not belong to a gateway sign-in in progress in this browser (it expired, was already used, or reached another browser). Nothing was done.',
        );
      if (params.has('error')) throw refused("The gateway's issuer did not sign you in.");
      const code = params.get('code');
      if (!code) throw reply(400, 'Sign-in refused', 'The answer has no code. Nothing was done.');
      return { person: await person(code, login.verifier, login.nonce), connect: login.connect };
    },
  };
}
